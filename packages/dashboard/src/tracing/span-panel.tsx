import { type ReactNode, useEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { SpanDetail } from '../api/types.ts';
import { Facts, Loaded } from '../components.tsx';
import { count, duration, none, usd } from '../format.ts';
import { orgPath } from '../paths.ts';
import { InputOutput, jsonText } from './messages.tsx';
import { useSpan } from './queries.ts';

// A span's panel: what it is (kind, model, tokens, and a generation's cost and the parts of its
// tokens, status, redactions, truncation), its input and output messages, and the attributes,
// events and resource it was sent with.

export function SpanPanel({
  orgId,
  traceId,
  spanId,
  takeFocus = true,
  onClose,
}: {
  orgId: string;
  traceId: string;
  spanId: string;
  /** Whether the focus moves to the panel (not when the span was reached from the trace's search). */
  takeFocus?: boolean;
  onClose: () => void;
}) {
  const span = useSpan(orgId, traceId, spanId);
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the focus moves to each new span's panel
  useEffect(() => {
    if (takeFocus) heading.current?.focus();
  }, [spanId, span.isSuccess]);
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
      <Loaded query={span} what="the span">
        {(data) => (
          <>
            <Facts
              label="The span"
              facts={[
                ['Kind', data.kind],
                ['Model', data.model ?? 'none'],
                ['Duration', duration(data.duration_ms)],
                [
                  'Tokens',
                  data.input_tokens === null && data.output_tokens === null
                    ? 'none reported'
                    : `${count(data.input_tokens ?? 0)} in, ${count(data.output_tokens ?? 0)} out`,
                ],
                ...(data.kind === 'generation' ? generationFacts(data, orgId) : []),
                [
                  'Status',
                  data.status_code === 2
                    ? `error${data.status_message ? `: ${data.status_message}` : ''}`
                    : data.status_code === 1
                      ? 'ok'
                      : 'unset',
                ],
                [
                  'Redactions',
                  data.redacted_count === 0
                    ? 'none'
                    : `${count(data.redacted_count)} credential${data.redacted_count === 1 ? '' : 's'} removed`,
                ],
                [
                  'Truncated',
                  [data.input_truncated && 'input', data.output_truncated && 'output']
                    .filter(Boolean)
                    .join(' and ') || 'no',
                ],
              ]}
            />
            <h3>Input</h3>
            <InputOutput io={data.input} truncated={data.input_truncated} />
            <h3>Output</h3>
            <InputOutput io={data.output} truncated={data.output_truncated} />
            <details>
              <summary>Attributes, events and resource</summary>
              <pre>
                {jsonText({
                  attributes: data.attributes,
                  events: data.events,
                  links: data.links,
                  resource: data.resource_attributes,
                  scope: `${data.scope_name} ${data.scope_version}`.trim(),
                })}
              </pre>
            </details>
          </>
        )}
      </Loaded>
    </section>
  );
}

const reported = (tokens: number | null) => (tokens === null ? 'none reported' : count(tokens));

/**
 * A generation's cost, at the price in effect when it was received, and the parts of its tokens
 * priced apart: none when its model has no price, with the way to give it one.
 */
function generationFacts(span: SpanDetail, orgId: string): [string, ReactNode][] {
  const tokens = span.input_tokens !== null || span.output_tokens !== null;
  const cost =
    span.cost_usd === null && span.model && tokens ? (
      <>
        {none}:{' '}
        <Link to={orgPath(orgId, `/settings/prices?model=${encodeURIComponent(span.model)}`)}>
          set a price for {span.model}
        </Link>
      </>
    ) : (
      usd(span.cost_usd)
    );
  return [
    ['Cost', cost],
    ['Cached input tokens', reported(span.cached_input_tokens)],
    ['Reasoning tokens', reported(span.reasoning_tokens)],
  ];
}
