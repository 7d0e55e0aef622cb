// Paging by the API's `next_cursor`, kept in the page's address: `cursor` is this page's, and each
// `before` the cursor of a page before it, nearest first (empty for the first page), so "Newer"
// goes back the way "Older" came. Pure functions of the search parameters (test/data.unit.test.ts).

export function olderSearch(search: URLSearchParams, nextCursor: string): URLSearchParams {
  const next = new URLSearchParams(search);
  next.set('cursor', nextCursor);
  next.delete('before');
  for (const before of [search.get('cursor') ?? '', ...search.getAll('before')])
    next.append('before', before);
  return next;
}

export function newerSearch(search: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(search);
  const [back = '', ...rest] = search.getAll('before');
  if (back) next.set('cursor', back);
  else next.delete('cursor');
  next.delete('before');
  for (const before of rest) next.append('before', before);
  return next;
}

/** A filter form's fields as search parameters (empty ones left out; times as ISO 8601). */
export function filterSearch(form: HTMLFormElement, times: readonly string[]): URLSearchParams {
  const next = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    const text = String(value).trim();
    if (!text) continue;
    next.set(name, times.includes(name) ? new Date(text).toISOString() : text);
  }
  return next;
}

/** An ISO time as a datetime-local field's value, in the browser's time zone. */
export function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A list's query from the address: the parameters of `names` that are given, `limit` as a number. */
export function listQuery<Query>(search: URLSearchParams, names: readonly string[]): Query {
  const query: Record<string, string | number> = {};
  for (const name of names) {
    const value = search.get(name);
    if (value) query[name] = name === 'limit' ? Number(value) : value;
  }
  return query as Query;
}
