import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { TraceItem, TracesQuery } from '../api/types.ts';
import { Loading, When } from '../components.tsx';
import { FilterForm } from '../filter-form.tsx';
import { count, duration, none, usd } from '../format.ts';
import { Pager } from '../pager.tsx';
import { listQuery } from '../paging.ts';
import { listWindow } from '../time-range.ts';
import { liveEveryMs, useTraces } from './queries.ts';
import {
  columnVisibility,
  showColumn,
  shownColumns,
  type TraceColumn,
  traceColumnHeaders,
  traceColumns,
} from './trace-columns.ts';
import { TraceFilters, traceFilterNames } from './trace-filters.tsx';

// The trace list: newest first, with the search box, every filter of the API and a quick time
// range in the address, paging by the cursor, each trace's model, latency, errors and cost, its
// session and user a one-click filter. The columns shown and whether the first page reads itself
// again every few seconds (Live) are in the address too, kept when the filters change.

const queryNames = [...traceFilterNames, 'cursor'];
/** How the list is shown, not what it lists: kept when the filters are changed or cleared. */
const viewNames = ['columns', 'live'];

export function TraceList({ orgId }: { orgId: string }) {
  const [search] = useSearchParams();
  const query = listQuery<TracesQuery>(search, queryNames);
  const live = search.get('live') === '1';
  const traces = useTraces(orgId, { ...query, ...listWindow(search, new Date()) }, live);

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
          keep={viewNames}
        >
          {(errorOf) => <TraceFilters query={query} errorOf={errorOf} />}
        </FilterForm>
      </search>
      <div className="list-tools">
        <LiveToggle live={live} firstPage={!query.cursor} refreshedAt={traces.dataUpdatedAt} />
        <ColumnChooser />
      </div>
      {traces.isPending ? (
        <Loading what="the traces" />
      ) : traces.isError ? null : traces.data.data.length === 0 ? (
        <p>No traces match.</p>
      ) : (
        <>
          <TraceTable traces={traces.data.data} />
          <Pager label="Pages of traces" nextCursor={traces.data.next_cursor} />
        </>
      )}
    </section>
  );
}

/**
 * Live: the first page read again every few seconds (`live=1` in the address), saying when it last
 * was. Not a live region: a screen reader would be told the time every few seconds.
 */
function LiveToggle({
  live,
  firstPage,
  refreshedAt,
}: {
  live: boolean;
  firstPage: boolean;
  refreshedAt: number;
}) {
  const [search, setSearch] = useSearchParams();
  function toggle() {
    const next = new URLSearchParams(search);
    if (live) next.delete('live');
    else next.set('live', '1');
    setSearch(next);
  }
  return (
    <div className="live">
      <button type="button" aria-pressed={live} onClick={toggle}>
        Live
      </button>
      {live && (
        <span className="muted small">
          {!firstPage
            ? 'Paused on older pages: Newer goes back to the newest traces.'
            : refreshedAt > 0 && (
                <>
                  The newest traces every {liveEveryMs / 1000} seconds; refreshed at{' '}
                  <time dateTime={new Date(refreshedAt).toISOString()}>
                    {new Date(refreshedAt).toLocaleTimeString()}
                  </time>
                  .
                </>
              )}
        </span>
      )}
    </div>
  );
}

/** Which columns the list shows: checkboxes in a disclosure, the choice kept in the address. */
function ColumnChooser() {
  const [search, setSearch] = useSearchParams();
  const shown = shownColumns(search);
  const id = useId();
  return (
    <details className="column-chooser">
      <summary>Columns</summary>
      <fieldset>
        <legend>Columns shown</legend>
        {traceColumns.map((name) => (
          <div className="checkbox" key={name}>
            <input
              type="checkbox"
              id={`${id}-${name}`}
              checked={shown.includes(name)}
              onChange={(event) => setSearch(showColumn(search, name, event.target.checked))}
            />
            <label htmlFor={`${id}-${name}`}>{traceColumnHeaders[name]}</label>
          </div>
        ))}
      </fieldset>
    </details>
  );
}

const column = createColumnHelper<TraceItem>();
/** Each column's header is its name in the chooser; the trace's own is always shown. */
const header = (name: TraceColumn) => traceColumnHeaders[name];
const columns = [
  column.display({
    id: 'trace',
    header: 'Trace',
    enableHiding: false,
    cell: ({ row }) => (
      <Link to={`traces/${encodeURIComponent(row.original.trace_id)}`}>
        {row.original.root_span_name ?? `Trace ${row.original.trace_id.slice(0, 8)}… (root not received)`}
      </Link>
    ),
  }),
  column.accessor('start_time', {
    id: 'started',
    header: header('started'),
    cell: (cell) => <When iso={cell.getValue()} />,
  }),
  column.accessor('models', {
    id: 'model',
    header: header('model'),
    cell: (cell) =>
      cell.getValue().length > 0 ? cell.getValue().join(', ') : <span className="muted">{none}</span>,
  }),
  column.accessor('duration_ms', {
    id: 'latency',
    header: header('latency'),
    cell: (cell) => duration(cell.getValue()),
  }),
  column.accessor('span_count', {
    id: 'spans',
    header: header('spans'),
    cell: (cell) => count(cell.getValue()),
  }),
  column.accessor('error_count', {
    id: 'errors',
    header: header('errors'),
    cell: (cell) =>
      cell.getValue() > 0 ? (
        <span className="error-badge">{count(cell.getValue())} failed</span>
      ) : (
        count(cell.getValue())
      ),
  }),
  column.display({
    id: 'tokens',
    header: header('tokens'),
    cell: ({ row }) => `${count(row.original.input_tokens)} / ${count(row.original.output_tokens)}`,
  }),
  column.accessor('total_cost_usd', {
    id: 'cost',
    header: header('cost'),
    cell: (cell) => <Cost amount={cell.getValue()} />,
  }),
  column.accessor('session_id', {
    id: 'session',
    header: header('session'),
    cell: (cell) => <OnlyButton what="session" name="session_id" value={cell.getValue()} />,
  }),
  column.accessor('user_id', {
    id: 'user',
    header: header('user'),
    cell: (cell) => <OnlyButton what="user" name="user_id" value={cell.getValue()} />,
  }),
];

function TraceTable({ traces }: { traces: TraceItem[] }) {
  const [search] = useSearchParams();
  const table = useReactTable({
    data: traces,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (trace) => trace.trace_id,
    state: { columnVisibility: columnVisibility(shownColumns(search)) },
  });
  return (
    <div className="table-wrap">
      <table aria-label="Traces">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((cell) => (
                <th scope="col" key={cell.id}>
                  {flexRender(cell.column.columnDef.header, cell.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) =>
                // The trace's name is its row's header.
                cell.column.id === 'trace' ? (
                  <th scope="row" key={cell.id}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </th>
                ) : (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ),
              )}
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

/** A trace's session or user: one click filters the list to it, from the first page; `open`, its page. */
function OnlyButton({
  what,
  name,
  value,
}: {
  what: string;
  name: 'session_id' | 'user_id';
  value: string | null;
}) {
  const [search, setSearch] = useSearchParams();
  if (!value) return <span className="muted">none</span>;
  function only(value: string) {
    const next = new URLSearchParams(search);
    next.delete('cursor');
    next.delete('before');
    next.set(name, value);
    setSearch(next);
  }
  // Relative to the tracing page, as a trace's link is: its page (sessions/…, users/…).
  const page = `${what === 'session' ? 'sessions' : 'users'}/${encodeURIComponent(value)}`;
  return (
    <>
      <button
        type="button"
        className="link-button"
        onClick={() => only(value)}
        title={`Only this ${what}'s traces`}
      >
        <span className="visually-hidden">Only the traces of {what} </span>
        {value}
      </button>{' '}
      <Link to={page} title={`The ${what}'s page`}>
        open
        <span className="visually-hidden">
          {' '}
          the page of {what} {value}
        </span>
      </Link>
    </>
  );
}
