import { useEffect, useRef } from 'react';
import { ErrorPanel, Facts, Loading } from '../components.tsx';
import { count, duration } from '../format.ts';
import { InputOutput, jsonText } from './messages.tsx';
import { useSpan } from './queries.ts';

// A span's panel: what it is (kind, model, tokens, status, redactions, truncation), its input and
// output messages, and the attributes, events and resource it was sent with.

export function SpanPanel({
  orgId,
  traceId,
  spanId,
  onClose,
}: {
  orgId: string;
  traceId: string;
  spanId: string;
  onClose: () => void;
}) {
  const span = useSpan(orgId, traceId, spanId);
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the focus moves to each new span's panel
  useEffect(() => heading.current?.focus(), [spanId, span.isSuccess]);
  return (
    <section className="span-panel card" aria-labelledby="span-title">
      <div className="panel-head">
        <h2 id="span-title" ref={heading} tabIndex={-1}>
          {span.data ? span.data.name : 'Span'}
        </h2>
        <button type="button" onClick={onClose}>
          Close the span
        </button>
      </div>
      {span.isPending ? (
        <Loading what="the span" />
      ) : span.isError ? (
        <ErrorPanel error={span.error} />
      ) : (
        <>
          <Facts
            label="The span"
            facts={[
              ['Kind', span.data.kind],
              ['Model', span.data.model ?? 'none'],
              ['Duration', duration(span.data.duration_ms)],
              [
                'Tokens',
                span.data.input_tokens === null && span.data.output_tokens === null
                  ? 'none reported'
                  : `${count(span.data.input_tokens ?? 0)} in, ${count(span.data.output_tokens ?? 0)} out`,
              ],
              [
                'Status',
                span.data.status_code === 2
                  ? `error${span.data.status_message ? `: ${span.data.status_message}` : ''}`
                  : span.data.status_code === 1
                    ? 'ok'
                    : 'unset',
              ],
              [
                'Redactions',
                span.data.redacted_count === 0
                  ? 'none'
                  : `${count(span.data.redacted_count)} credential${span.data.redacted_count === 1 ? '' : 's'} removed`,
              ],
              [
                'Truncated',
                [span.data.input_truncated && 'input', span.data.output_truncated && 'output']
                  .filter(Boolean)
                  .join(' and ') || 'no',
              ],
            ]}
          />
          <h3>Input</h3>
          <InputOutput io={span.data.input} truncated={span.data.input_truncated} />
          <h3>Output</h3>
          <InputOutput io={span.data.output} truncated={span.data.output_truncated} />
          <details>
            <summary>Attributes, events and resource</summary>
            <pre>
              {jsonText({
                attributes: span.data.attributes,
                events: span.data.events,
                links: span.data.links,
                resource: span.data.resource_attributes,
                scope: `${span.data.scope_name} ${span.data.scope_version}`.trim(),
              })}
            </pre>
          </details>
        </>
      )}
    </section>
  );
}
