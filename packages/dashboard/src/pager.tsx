import { useSearchParams } from 'react-router';
import { newerSearch, olderSearch } from './paging.ts';

/**
 * Back and on under a list paged by the API's `next_cursor`, the cursors kept in the address:
 * "Newer" and "Older" for a list newest first; a list in another order names its own directions.
 */
export function Pager({
  label,
  nextCursor,
  back = 'Newer',
  on = 'Older',
}: {
  label: string;
  nextCursor: string | null | undefined;
  back?: string;
  on?: string;
}) {
  const [search, setSearch] = useSearchParams();
  return (
    <nav aria-label={label} className="actions">
      <button type="button" onClick={() => setSearch(newerSearch(search))} disabled={!search.get('cursor')}>
        {back}
      </button>
      <button
        type="button"
        onClick={() => nextCursor && setSearch(olderSearch(search, nextCursor))}
        disabled={!nextCursor}
      >
        {on}
      </button>
    </nav>
  );
}
