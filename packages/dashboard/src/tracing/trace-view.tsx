import { Link, useParams, useSearchParams } from 'react-router';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { count, duration, usd } from '../format.ts';
import { orgPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { useTrace } from './queries.ts';
import { SpanPanel } from './span-panel.tsx';
import { type SpanRow, spanRows } from './span-rows.ts';

// One trace: its totals, then its spans as a tree beside their timeline (a waterfall), one row per
// span so each bar sits next to its name; choosing a span (`?span=` in the address) opens its
// panel with the messages, tool calls and results.

export function TracePage() {
  const org = useOrg();
  const traceId = useParams().traceId ?? '';
  const [search, setSearch] = useSearchParams();
  const selected = search.get('span');
  const trace = useTrace(org.id, traceId);
  const title = trace.data?.root_span_name ?? `Trace ${traceId.slice(0, 12)}`;
  return (
    <Page title={title}>
      <p>
        <Link to={orgPath(org.id, '/tracing')}>Back to the traces</Link>
      </p>
      <Loaded query={trace} what="the trace">
        {(data) => (
          <>
            <Facts
              label="The trace"
              facts={[
                ['Trace id', <code key="id">{data.trace_id}</code>],
                ['Started', <When key="start" iso={data.start_time} />],
                ['Duration', duration(data.duration_ms)],
                ['Spans', `${count(data.span_count)} (${count(data.error_count)} failed)`],
                ['Tokens', `${count(data.input_tokens)} in, ${count(data.output_tokens)} out`],
                ['Cost', usd(data.total_cost_usd)],
                ['Service', data.service ?? 'none'],
                ['Session', data.session_id ?? 'none'],
                ['User', data.user_id ?? 'none'],
              ]}
            />
            <div className="trace-layout">
              <SpanWaterfall
                rows={spanRows(data.spans)}
                selected={selected}
                totalMs={data.duration_ms}
                onSelect={(spanId) => setSearch(spanId ? { span: spanId } : {})}
              />
              {selected && (
                <SpanPanel orgId={org.id} traceId={traceId} spanId={selected} onClose={() => setSearch({})} />
              )}
            </div>
          </>
        )}
      </Loaded>
    </Page>
  );
}

function SpanWaterfall({
  rows,
  selected,
  totalMs,
  onSelect,
}: {
  rows: SpanRow[];
  selected: string | null;
  totalMs: number;
  onSelect: (spanId: string | null) => void;
}) {
  return (
    <section aria-labelledby="spans-title" className="waterfall">
      <h2 id="spans-title">Spans</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Span tree</th>
            <th scope="col">
              Timeline <span className="muted">(0 to {duration(totalMs)})</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <SpanRowView
              key={row.span.span_id}
              row={row}
              selected={row.span.span_id === selected}
              onSelect={() => onSelect(row.span.span_id === selected ? null : row.span.span_id)}
            />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function SpanRowView({ row, selected, onSelect }: { row: SpanRow; selected: boolean; onSelect: () => void }) {
  const { span } = row;
  const failed = span.status_code === 2;
  return (
    <tr className={selected ? 'selected' : undefined}>
      <th scope="row" style={{ paddingLeft: `${0.75 + row.depth * 1.25}rem` }}>
        <button
          type="button"
          className="span-name"
          aria-pressed={selected}
          aria-label={`${span.name}, ${span.kind}${failed ? ', failed' : ''}, depth ${row.depth + 1}`}
          onClick={onSelect}
        >
          {row.depth > 0 && <span aria-hidden="true">└ </span>}
          {span.name}
        </button>
        <span className={`kind kind-${span.kind}`}>{span.kind}</span>
        {failed && <span className="error-badge">failed</span>}
      </th>
      <td className="timeline-cell">
        <div
          className={`bar kind-${span.kind}${failed ? ' failed' : ''}`}
          style={{ marginLeft: `${row.offset * 100}%`, width: `max(2px, ${row.width * 100}%)` }}
          title={`starts at ${duration(row.startsAtMs)}, lasts ${duration(span.duration_ms)}`}
        />
        <span className="bar-label">
          +{duration(row.startsAtMs)} · {duration(span.duration_ms)}
        </span>
      </td>
    </tr>
  );
}
