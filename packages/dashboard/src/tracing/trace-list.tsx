import { Link, useSearchParams } from 'react-router';
import type { TraceItem, TracesQuery } from '../api/types.ts';
import { Loading, When } from '../components.tsx';
import { FilterForm } from '../filter-form.tsx';
import { count, duration, none, usd } from '../format.ts';
import { Pager } from '../pager.tsx';
import { listQuery } from '../paging.ts';
import { useTraces } from './queries.ts';
import { TraceFilters, traceFilterNames } from './trace-filters.tsx';

// The trace list: newest first, with the search box and every filter of the API in the address,
// paging by the cursor, each trace's cost, and its session and user a one-click filter.

const queryNames = [...traceFilterNames, 'cursor'];

export function TraceList({ orgId }: { orgId: string }) {
  const [search, setSearch] = useSearchParams();
  const query = listQuery<TracesQuery>(search, queryNames);
  const traces = useTraces(orgId, query);
  /** Only this filter added to those in force, from the first page. */
  function only(name: 'session_id' | 'user_id', value: string) {
    const next = new URLSearchParams(search);
    next.delete('cursor');
    next.delete('before');
    next.set(name, value);
    setSearch(next);
  }

  return (
    <section aria-labelledby="traces-title">
      <h2 id="traces-title">Traces</h2>
      <search>
        <FilterForm
          label="Find traces"
          submit="Search"
          clear="Clear"
          error={traces.error}
          fields={traceFilterNames}
        >
          {(errorOf) => <TraceFilters query={query} errorOf={errorOf} />}
        </FilterForm>
      </search>
      {traces.isPending ? (
        <Loading what="the traces" />
      ) : traces.isError ? null : traces.data.data.length === 0 ? (
        <p>No traces match.</p>
      ) : (
        <>
          <TraceTable traces={traces.data.data} onOnly={only} />
          <Pager label="Pages of traces" nextCursor={traces.data.next_cursor} />
        </>
      )}
    </section>
  );
}

function TraceTable({
  traces,
  onOnly,
}: {
  traces: TraceItem[];
  onOnly: (name: 'session_id' | 'user_id', value: string) => void;
}) {
  return (
    <div className="table-wrap">
      <table aria-label="Traces">
        <thead>
          <tr>
            <th scope="col">Trace</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Spans</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            <th scope="col">Session</th>
            <th scope="col">User</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((trace) => (
            <tr key={trace.trace_id}>
              <th scope="row">
                <Link to={`traces/${encodeURIComponent(trace.trace_id)}`}>
                  {trace.root_span_name ?? `Trace ${trace.trace_id.slice(0, 8)}… (root not received)`}
                </Link>
                {trace.models.length > 0 && <div className="muted small">{trace.models.join(', ')}</div>}
              </th>
              <td>
                <When iso={trace.start_time} />
              </td>
              <td>{duration(trace.duration_ms)}</td>
              <td>
                {count(trace.span_count)}
                {trace.error_count > 0 && (
                  <span className="error-badge"> {count(trace.error_count)} failed</span>
                )}
              </td>
              <td>
                {count(trace.input_tokens)} / {count(trace.output_tokens)}
              </td>
              <td>
                <Cost amount={trace.total_cost_usd} />
              </td>
              <td>
                <FilterButton
                  what="session"
                  value={trace.session_id}
                  onClick={(v) => onOnly('session_id', v)}
                />
              </td>
              <td>
                <FilterButton what="user" value={trace.user_id} onClick={(v) => onOnly('user_id', v)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A trace's cost: none (muted, as a missing session is) when no generation of it has a price. */
function Cost({ amount }: { amount: number | null }) {
  if (amount === null) return <span className="muted">{none}</span>;
  return <>{usd(amount)}</>;
}

function FilterButton({
  what,
  value,
  onClick,
}: {
  what: string;
  value: string | null;
  onClick: (value: string) => void;
}) {
  if (!value) return <span className="muted">none</span>;
  return (
    <button
      type="button"
      className="link-button"
      onClick={() => onClick(value)}
      title={`Only this ${what}'s traces`}
    >
      <span className="visually-hidden">Only the traces of {what} </span>
      {value}
    </button>
  );
}
