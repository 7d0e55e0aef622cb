import { TextField } from './components.tsx';
import { localInput } from './paging.ts';

// Fields that list pages' filter forms share, named as the API's query parameters.

type ErrorOf = (name: string) => string | undefined;

/** The window of time a list is filtered to: `from` and `to`, in the browser's time zone. */
export function TimeRangeFields({
  query,
  errorOf,
}: {
  query: { from?: string; to?: string };
  errorOf: ErrorOf;
}) {
  return (
    <>
      <TextField
        label="From"
        name="from"
        type="datetime-local"
        defaultValue={localInput(query.from)}
        error={errorOf('from')}
      />
      <TextField
        label="To"
        name="to"
        type="datetime-local"
        defaultValue={localInput(query.to)}
        error={errorOf('to')}
      />
    </>
  );
}

/** How many rows a page of the list has (`limit`), up to the API's `max`. */
export function PerPageField({ limit, max, errorOf }: { limit?: number; max: number; errorOf: ErrorOf }) {
  return (
    <TextField
      label="Per page"
      name="limit"
      type="number"
      min={1}
      max={max}
      defaultValue={limit === undefined ? '' : String(limit)}
      error={errorOf('limit')}
    />
  );
}
