import { useSearchParams } from 'react-router';
import { newerSearch, olderSearch } from './paging.ts';

/** "Newer" and "Older" under a list paged by the API's `next_cursor`, the cursors kept in the address. */
export function Pager({ label, nextCursor }: { label: string; nextCursor: string | null | undefined }) {
  const [search, setSearch] = useSearchParams();
  return (
    <nav aria-label={label} className="actions">
      <button type="button" onClick={() => setSearch(newerSearch(search))} disabled={!search.get('cursor')}>
        Newer
      </button>
      <button
        type="button"
        onClick={() => nextCursor && setSearch(olderSearch(search, nextCursor))}
        disabled={!nextCursor}
      >
        Older
      </button>
    </nav>
  );
}
