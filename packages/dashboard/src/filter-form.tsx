import { type FormEvent, type ReactNode, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { FormError, fieldErrors, TextField, useFocusOnError } from './components.tsx';
import { filterSearch, localInput } from './paging.ts';

// A list page's filter form and the fields such forms share, named as the API's query parameters,
// so the list's refusal (its `param`) is shown at the field that asked for it.

type ErrorOf = (name: string) => string | undefined;

/**
 * A list's filters: submitted, its fields become the address's search (times as ISO 8601, empty
 * ones left out); cleared, the search is emptied. The list's error is said at its field, which
 * takes the focus, or for the whole form (a refused cursor, the list not loading).
 */
export function FilterForm({
  label,
  submit,
  clear,
  error,
  fields,
  children,
}: {
  label: string;
  submit: string;
  clear: string;
  error: unknown;
  fields: readonly string[];
  children: (errorOf: ErrorOf) => ReactNode;
}) {
  const [, setSearch] = useSearchParams();
  const form = useRef<HTMLFormElement>(null);
  const errors = fieldErrors(error, fields);
  useFocusOnError(form, error, errors.field);
  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSearch(filterSearch(event.currentTarget, ['from', 'to']));
  }
  return (
    <form ref={form} onSubmit={filter} noValidate className="card filters" aria-label={label}>
      {children(errors.of)}
      <FormError message={errors.general} />
      <div className="actions">
        <button type="submit" className="primary">
          {submit}
        </button>
        <button type="button" onClick={() => setSearch(new URLSearchParams())}>
          {clear}
        </button>
      </div>
    </form>
  );
}

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
