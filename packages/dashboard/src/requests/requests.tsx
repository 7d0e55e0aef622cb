import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { RequestRow, RequestsQuery } from '../api/types.ts';
import { Loading, Page, When } from '../components.tsx';
import { FilterForm } from '../filter-form.tsx';
import { count, duration } from '../format.ts';
import { Pager } from '../pager.tsx';
import { listQuery } from '../paging.ts';
import { useKeys } from '../settings/org-queries.ts';
import { useOrg } from '../shell.tsx';
import { listWindow } from '../time-range.ts';
import { RequestFilters, requestFilterNames } from './filters.tsx';
import { MadeBy } from './made-by.tsx';

// Endpoints > Requests (spec 000): the org's title and preview requests, newest first, with the
// key that made each (for the Playground, the person who sent it) and the model's time; a row
// opens the request. The filters, a quick time range and the page's cursor live in the address, so
// a filtered page can be reloaded or shared; the API's message for a filter it refuses is shown at
// that filter.

const column = createColumnHelper<RequestRow>();
const columns = [
  // The row's link: its ::after covers the row (styles.css, .row-links), so a click anywhere on the
  // row opens the request, and Tab reaches one link per row.
  column.accessor('created_at', {
    header: 'When',
    cell: (cell) => (
      <Link className="row-link" to={encodeURIComponent(cell.row.original.id)}>
        <When iso={cell.getValue()} />
      </Link>
    ),
  }),
  column.display({
    id: 'made_by',
    header: 'Made by',
    cell: (cell) => <MadeBy request={cell.row.original} />,
  }),
  column.accessor('model', { header: 'Model' }),
  column.accessor('endpoint', { header: 'Endpoint', cell: (cell) => <code>/v1/{cell.getValue()}</code> }),
  column.accessor('input_tokens', { header: 'Input tokens', cell: (cell) => count(cell.getValue()) }),
  column.accessor('output_tokens', { header: 'Output tokens', cell: (cell) => count(cell.getValue()) }),
  column.accessor('fallback', { header: 'Fallback', cell: (cell) => (cell.getValue() ? 'yes' : 'no') }),
  column.accessor('latency_ms', { header: "Model's time", cell: (cell) => duration(cell.getValue()) }),
];

const queryNames = ['from', 'to', 'model', 'key_id', 'endpoint', 'limit', 'cursor'] as const;

export function RequestsPage() {
  const org = useOrg();
  const [search] = useSearchParams();
  const query = listQuery<RequestsQuery>(search, queryNames);
  const asked = { ...query, ...listWindow(search, new Date()) };
  const keys = useKeys(org.id);
  const requests = useQuery({
    queryKey: ['orgs', org.id, 'requests', asked],
    queryFn: () =>
      dataOf(api.GET('/api/inference/requests', { params: { query: asked }, ...inOrgHeader(org.id) })),
    placeholderData: keepPreviousData,
  });
  return (
    <Page title="Requests">
      <p className="lead">Every title and preview request of {org.name}, newest first.</p>
      <FilterForm
        label="Filters"
        submit="Filter"
        clear="Clear the filters"
        error={requests.error}
        fields={requestFilterNames}
      >
        {(errorOf) => <RequestFilters query={query} keys={keys.data ?? []} errorOf={errorOf} />}
      </FilterForm>
      {requests.isPending ? (
        <Loading what="the requests" />
      ) : requests.isError ? null : (
        <>
          <RequestTable rows={requests.data.data} />
          <Pager label="Pages of requests" nextCursor={requests.data.next_cursor} />
        </>
      )}
    </Page>
  );
}

function RequestTable({ rows }: { rows: RequestRow[] }) {
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => row.id,
  });
  if (rows.length === 0) return <p>No requests match.</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Requests" className="row-links">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th scope="col" key={header.id}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
