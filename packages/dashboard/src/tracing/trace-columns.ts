// The trace list's columns a person may hide, and the choice kept in the address (`columns=`, the
// shown ones in the table's order), so a shared link shows the same columns. No `columns` shows
// them all; the trace's name is always shown, as each row's header. Pure (test/lists.unit.test.ts).

export const traceColumnHeaders = {
  started: 'Started',
  model: 'Model',
  latency: 'Latency',
  spans: 'Spans',
  errors: 'Errors',
  tokens: 'Tokens in / out',
  cost: 'Cost',
  session: 'Session',
  user: 'User',
} as const;

export type TraceColumn = keyof typeof traceColumnHeaders;
export const traceColumns = Object.keys(traceColumnHeaders) as TraceColumn[];

const isColumn = (name: string): name is TraceColumn => Object.hasOwn(traceColumnHeaders, name);

/** The columns the address shows: all without `columns`, none besides the trace's with `columns=`. */
export function shownColumns(search: URLSearchParams): TraceColumn[] {
  const listed = search.get('columns');
  if (listed === null) return traceColumns;
  const names = new Set(listed.split(',').filter(isColumn));
  return traceColumns.filter((name) => names.has(name));
}

/** The address showing `column` or not, the others as they were; showing them all drops `columns`. */
export function showColumn(search: URLSearchParams, column: TraceColumn, shown: boolean): URLSearchParams {
  const now = new Set(shownColumns(search));
  if (shown) now.add(column);
  else now.delete(column);
  const next = new URLSearchParams(search);
  if (now.size === traceColumns.length) next.delete('columns');
  else next.set('columns', traceColumns.filter((name) => now.has(name)).join(','));
  return next;
}

/** The shown columns as @tanstack/react-table's column visibility. */
export function columnVisibility(shown: readonly TraceColumn[]): Record<TraceColumn, boolean> {
  return Object.fromEntries(traceColumns.map((name) => [name, shown.includes(name)])) as Record<
    TraceColumn,
    boolean
  >;
}
