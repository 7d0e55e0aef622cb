import type { ApiKey, RequestsQuery } from '../api/types.ts';
import { SelectField, TextField } from '../components.tsx';
import { PerPageField, TimeRangeFields } from '../filter-form.tsx';

// The request log's filters as form fields, named as the API's query parameters
// (api/inference/requests-list.ts, `requestsQuery`), so a refusal's `param` names its field.

/** A refused `cursor` has no field: its message is shown for the whole form. */
export const requestFilterNames = ['from', 'to', 'model', 'key_id', 'endpoint', 'limit'];

export function RequestFilters({
  query,
  keys,
  errorOf,
}: {
  query: RequestsQuery;
  keys: ApiKey[];
  errorOf: (name: string) => string | undefined;
}) {
  // Keyed by the query, so the fields show the filters in force after each navigation.
  const key = JSON.stringify(query);
  return (
    <div className="filter-grid" key={key}>
      <TimeRangeFields query={query} errorOf={errorOf} />
      <TextField label="Model" name="model" defaultValue={query.model ?? ''} error={errorOf('model')} />
      <SelectField label="Key" name="key_id" defaultValue={query.key_id ?? ''} error={errorOf('key_id')}>
        <option value="">Any</option>
        {keys.map((apiKey) => (
          <option key={apiKey.id} value={apiKey.id}>
            {apiKey.name} ({apiKey.prefix}…)
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Endpoint"
        name="endpoint"
        defaultValue={query.endpoint ?? ''}
        error={errorOf('endpoint')}
      >
        <option value="">Both</option>
        <option value="titles">titles</option>
        <option value="previews">previews</option>
      </SelectField>
      <PerPageField limit={query.limit} max={200} errorOf={errorOf} />
    </div>
  );
}
