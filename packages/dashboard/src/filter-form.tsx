import { type FormEvent, type ReactNode, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { FormError, fieldErrors, TextField, useFocusOnError } from './components.tsx';
import { filterSearch, localInput } from './paging.ts';
import { chooseRange, listRange, quickRanges, type RangeId, type RangeParam, rangeOf } from './time-range.ts';

// A list page's filter form and the fields such forms share, named as the API's query parameters,
// so the list's refusal (its `param`) is shown at the field that asked for it. A list filtered by
// time (`from`) has quick ranges above its fields.

type ErrorOf = (name: string) => string | undefined;

/**
 * A list's filters: submitted, its fields become the address's search (times as ISO 8601, empty
 * ones left out), with the quick range chosen unless From or To replaces it; cleared, the search
 * is emptied. Either way the parameters of `keep` stay (how the list is shown, not what it
 * lists). The list's error is said at its field, which takes the focus, or for the whole form (a
 * refused cursor, the list not loading).
 */
export function FilterForm({
  label,
  submit,
  clear,
  error,
  fields,
  keep = [],
  children,
}: {
  label: string;
  submit: string;
  clear: string;
  error: unknown;
  fields: readonly string[];
  keep?: readonly string[];
  children: (errorOf: ErrorOf) => ReactNode;
}) {
  const [search, setSearch] = useSearchParams();
  const form = useRef<HTMLFormElement>(null);
  const errors = fieldErrors(error, fields);
  useFocusOnError(form, error, errors.field);
  /** `next` with the parameters of `keep` the address has now. */
  function kept(next: URLSearchParams): URLSearchParams {
    for (const name of keep) for (const value of search.getAll(name)) next.append(name, value);
    return next;
  }
  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const next = filterSearch(event.currentTarget, listRange.times);
    const range = rangeOf(search, listRange.param, listRange.times);
    if (range && !listRange.times.some((name) => next.has(name))) next.set(listRange.param, range.id);
    setSearch(kept(next));
  }
  return (
    <form ref={form} onSubmit={filter} noValidate className="card filters" aria-label={label}>
      {fields.includes('from') && <QuickRanges label="Quick time range" of={listRange} />}
      {children(errors.of)}
      <FormError message={errors.general} />
      <div className="actions">
        <button type="submit" className="primary">
          {submit}
        </button>
        <button type="button" onClick={() => setSearch(kept(new URLSearchParams()))}>
          {clear}
        </button>
      </div>
    </form>
  );
}

/**
 * The quick ranges as toggle buttons, the chosen one pressed, kept in the address as `of` says. A
 * list's replaces its From and To; pressed again, it is no longer chosen. A page whose API has a
 * range of its own without one shows that one pressed.
 */
export function QuickRanges({ label, of }: { label: string; of: RangeParam }) {
  const [search, setSearch] = useSearchParams();
  const chosen = rangeOf(search, of.param, of.times)?.id;
  const pressed = chosen ?? of.fallback;
  function choose(id: RangeId) {
    const next = id === of.fallback || (id === chosen && !of.fallback) ? undefined : id;
    setSearch(chooseRange(search, of.param, next, of.reset));
  }
  return (
    <fieldset className="quick-ranges">
      <legend>{label}</legend>
      <div className="quick-range-buttons">
        {quickRanges.map((range) => (
          <button
            key={range.id}
            type="button"
            aria-pressed={range.id === pressed}
            onClick={() => choose(range.id)}
          >
            {range.label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * The window of time a list is filtered to: `from` and `to`, in the browser's time zone. Empty
 * while a quick range is chosen, which From says; a time typed in either replaces the range.
 */
export function TimeRangeFields({
  query,
  errorOf,
}: {
  query: { from?: string; to?: string };
  errorOf: ErrorOf;
}) {
  const [search] = useSearchParams();
  const range = rangeOf(search, listRange.param, listRange.times);
  return (
    <>
      <TextField
        label="From"
        name="from"
        type="datetime-local"
        defaultValue={localInput(query.from)}
        hint={range && `${range.last} (a quick range) until a time is given here or in To.`}
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
