import type { TracesQuery } from '../api/types.ts';
import { SelectField, TextField } from '../components.tsx';
import { PerPageField, TimeRangeFields } from '../filter-form.tsx';

// Every filter of GET /api/traces (api/queries/schemas.ts, `traceListQuery`) as a form field named
// by its query parameter, the search box (`name`: a span name contains the text) first.

export const spanKinds = ['generation', 'tool', 'agent', 'retrieval', 'span'] as const;
export const traceFilterNames = [
  'name',
  'from',
  'to',
  'session_id',
  'user_id',
  'service',
  'environment',
  'model',
  'kind',
  'limit',
];
const textFilters = [
  ['session_id', 'Session'],
  ['user_id', 'User'],
  ['service', 'Service'],
  ['environment', 'Environment'],
  ['model', 'Model'],
] as const;

export function TraceFilters({
  query,
  errorOf,
}: {
  query: TracesQuery;
  errorOf: (name: string) => string | undefined;
}) {
  return (
    <div key={JSON.stringify(query)}>
      <TextField
        label="Search span names"
        name="name"
        type="search"
        defaultValue={query.name ?? ''}
        hint="Traces with a span whose name contains this text (a tool's name, an agent's), ignoring case."
        error={errorOf('name')}
      />
      <details className="more-filters" open={Object.keys(query).some((name) => name !== 'name')}>
        <summary>More filters</summary>
        <div className="filter-grid">
          <TimeRangeFields query={query} errorOf={errorOf} />
          {textFilters.map(([name, label]) => (
            <TextField
              key={name}
              label={label}
              name={name}
              defaultValue={query[name] ?? ''}
              error={errorOf(name)}
            />
          ))}
          <SelectField label="Span kind" name="kind" defaultValue={query.kind ?? ''} error={errorOf('kind')}>
            <option value="">Any</option>
            {spanKinds.map((kind) => (
              <option key={kind} value={kind}>
                {kind}
              </option>
            ))}
          </SelectField>
          <PerPageField limit={query.limit} max={100} errorOf={errorOf} />
        </div>
      </details>
    </div>
  );
}
