// The quick time ranges of a list (and of Tracing's analytics): the last hour, 24 hours, 7 days or
// 30 days, kept in the address by name (`range=24h`), so a shared link shows the last 24 hours
// when it is opened, not the 24 hours before it was copied. Pure functions of the search
// parameters (test/lists.unit.test.ts).

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

export const quickRanges = [
  { id: '1h', label: '1 hour', last: 'The last hour', ms: hourMs },
  { id: '24h', label: '24 hours', last: 'The last 24 hours', ms: dayMs },
  { id: '7d', label: '7 days', last: 'The last 7 days', ms: 7 * dayMs },
  { id: '30d', label: '30 days', last: 'The last 30 days', ms: 30 * dayMs },
] as const;

export type QuickRange = (typeof quickRanges)[number];
export type RangeId = QuickRange['id'];

/**
 * Where a page keeps its quick range: the address parameter; the parameters that win over it
 * (`times`); those choosing one removes (`reset`); and the range the API takes without one
 * (`fallback`), shown as chosen.
 */
export type RangeParam = {
  param: string;
  times: readonly string[];
  reset: readonly string[];
  fallback?: RangeId;
};

/**
 * A list's quick range: a time typed in From or To replaces it, and choosing one replaces them
 * and starts the list again at its newest page.
 */
export const listRange = {
  param: 'range',
  times: ['from', 'to'],
  reset: ['from', 'to', 'cursor', 'before'],
} as const satisfies RangeParam;

/** The range the address names under `param`, unless one of `times` is given (which wins). */
export function rangeOf(
  search: URLSearchParams,
  param: string,
  times: readonly string[] = [],
): QuickRange | undefined {
  if (times.some((name) => search.get(name))) return undefined;
  return quickRanges.find((range) => range.id === search.get(param));
}

/**
 * The address with `range` chosen under `param` (or none: undefined), the parameters of `reset`
 * removed (the times it replaces, and the paging cursors: the list starts again at its newest).
 */
export function chooseRange(
  search: URLSearchParams,
  param: string,
  range: RangeId | undefined,
  reset: readonly string[] = [],
): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const name of reset) next.delete(name);
  if (range) next.set(param, range);
  else next.delete(param);
  return next;
}

/**
 * When a range ending at `now` starts, as ISO 8601, to the minute: the list's query stays the same
 * while the page is open within that minute, rather than changing (and loading again) each render.
 */
export function rangeStart(range: QuickRange, now: Date): string {
  const minute = Math.floor(now.getTime() / 60_000) * 60_000;
  return new Date(minute - range.ms).toISOString();
}

/**
 * The window a list asks the API for: `from` and `to` as the address gives them, or else the start
 * of its quick range at `now` (a range has no end: it runs to now).
 */
export function listWindow(search: URLSearchParams, now: Date): { from?: string; to?: string } {
  const range = rangeOf(search, listRange.param, listRange.times);
  if (range) return { from: rangeStart(range, now) };
  const window: { from?: string; to?: string } = {};
  for (const name of listRange.times) {
    const value = search.get(name);
    if (value) window[name] = value;
  }
  return window;
}
