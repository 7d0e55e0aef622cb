import { z } from 'zod';
import type { OrgState } from '../../domain/orgs/org.ts';
import type { PersonState } from '../../domain/people/person.ts';
import { inferenceEndpoints } from '../../domain/usage/events.ts';
import { type ClickHouseReader, joinSql, type SqlFragment, sql } from '../../platform/clickhouse.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { peopleByIds } from '../../stores/people.ts';
import { inferenceApiError } from './error-format.ts';

// `GET /api/inference/requests`: the dashboard's Endpoints > Requests list (spec 000, What the
// service does), read from the request log in ClickHouse (`requests`, FINAL so a redelivered
// usage event is one row). Newest first; the cursor is the last row's (time, request id). Each
// request names who made it: its key, or the person whose dashboard session sent it (issue 50,
// item 4), named from the people read model in Postgres while they are a member of the org.

export const requestsQuery = z.strictObject({
  /** Inclusive, ISO 8601. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Exclusive, ISO 8601. */
  to: z.iso.datetime({ offset: true }).optional(),
  model: z.string().min(1).optional(),
  key_id: z.string().min(1).optional(),
  endpoint: z.enum(inferenceEndpoints).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** `next_cursor` of the previous page. */
  cursor: z.string().min(1).optional(),
});
export type RequestsQuery = z.output<typeof requestsQuery>;

export const requestRow = z.object({
  id: z.string(),
  created_at: z.string(),
  key: z
    .object({ id: z.string(), name: z.string().nullable(), prefix: z.string().nullable() })
    .nullable()
    .describe(
      "the key that made the request; null for the dashboard's Playground (a session), which names its `person`",
    ),
  person: z
    .object({
      id: z.string(),
      name: z.string().nullable().describe('null once the person is no longer a member of the org'),
    })
    .nullable()
    .describe(
      "the person whose dashboard session sent the request (the Playground); null for a key's request",
    ),
  model: z.string(),
  endpoint: z.enum(inferenceEndpoints),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  fallback: z.boolean(),
  /** The model's time. */
  latency_ms: z.number(),
});

export const requestsPage = z.object({ data: z.array(requestRow), next_cursor: z.string().nullable() });

/** `GET /api/inference/requests/{requestId}`: one request of the log, with what it cost. */
export const requestParams = z.object({ requestId: z.string().min(1) });

export const requestDetail = requestRow.extend({
  cost_cents: z
    .number()
    .describe(
      "the input tokens at the model's price, in cents, unrounded: billing rounds a day's use of a model up to a whole cent once",
    ),
});

interface Position {
  atMs: number;
  requestId: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.atMs, position.requestId])).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  try {
    const [atMs, requestId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(atMs) && typeof requestId === 'string')
      return { atMs: atMs as number, requestId };
  } catch {
    // reported below
  }
  throw inferenceApiError('invalid_request', {
    param: 'cursor',
    message: '`cursor` must be the `next_cursor` of a previous page, as it was sent.',
  });
}

export interface LogRow {
  request_id: string;
  occurred_at_ms: string;
  key_id: string;
  /** '' for a key's request, and for a session's logged before people were named. */
  person_id: string;
  model: string;
  endpoint: string;
  input_tokens: string;
  output_tokens: string;
  fallback: number;
  latency_ms: number;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The people a page of the log names, as they are now; only the org's members are named. */
export type NamedPeople = ReadonlyMap<string, Pick<PersonState, 'name'>>;

/**
 * The people who sent the rows' requests, read once for the page, for those who are members of
 * the org now: a person who left is their id alone, as a key the org does not know is. No read
 * when no row was sent with a session.
 */
export async function namedPeople(
  pool: PgPool,
  members: OrgState['members'],
  rows: readonly LogRow[],
): Promise<NamedPeople> {
  const ids = [...new Set(rows.map((row) => row.person_id))].filter((id) => Object.hasOwn(members, id));
  return ids.length === 0 ? new Map() : peopleByIds(pool, ids);
}

/**
 * A row of the log as the API answers it: its key named from the org's keys (renamed or deleted
 * since), its person from `people` (`namedPeople`).
 */
export function requestItem(
  row: LogRow,
  keys: OrgState['keys'],
  people: NamedPeople,
): z.output<typeof requestRow> {
  const person = people.get(row.person_id);
  return {
    id: row.request_id,
    created_at: new Date(Number(row.occurred_at_ms)).toISOString(),
    key:
      row.key_id === ''
        ? null
        : {
            id: row.key_id,
            name: keys[row.key_id]?.name ?? null,
            prefix: keys[row.key_id]?.keyPrefix ?? null,
          },
    person: row.person_id === '' ? null : { id: row.person_id, name: person?.name ?? null },
    model: row.model,
    endpoint: row.endpoint as (typeof inferenceEndpoints)[number],
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    fallback: row.fallback === 1,
    // ClickHouse 18.16 prints Float64 without shortest round-trip (6.6899999999999995).
    latency_ms: Math.round(row.latency_ms * 100) / 100,
  };
}

/** The endpoints the log answers for: it also holds runs' metered stretches (endpoint `runs`), which are not requests. */
const requestEndpoints = () =>
  joinSql(
    inferenceEndpoints.map((endpoint) => sql`${endpoint}`),
    ', ',
  );

/** The WHERE clause: the org, then each filter given; times also bound `occurred_at` (the key). */
function conditions(orgId: string, query: RequestsQuery): SqlFragment[] {
  const where = [sql`org_id = ${orgId}`, sql`endpoint IN (${requestEndpoints()})`];
  if (query.from !== undefined) {
    const ms = Date.parse(query.from);
    where.push(sql`occurred_at >= toDateTime(${seconds(ms)})`, sql`occurred_at_ms >= ${ms}`);
  }
  if (query.to !== undefined) {
    const ms = Date.parse(query.to);
    where.push(sql`occurred_at <= toDateTime(${seconds(ms)})`, sql`occurred_at_ms < ${ms}`);
  }
  if (query.model !== undefined) where.push(sql`model = ${query.model}`);
  if (query.key_id !== undefined) where.push(sql`key_id = ${query.key_id}`);
  if (query.endpoint !== undefined) where.push(sql`endpoint = ${query.endpoint}`);
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor);
    where.push(
      sql`occurred_at <= toDateTime(${seconds(after.atMs)})`,
      sql`(occurred_at_ms < ${after.atMs} OR (occurred_at_ms = ${after.atMs} AND request_id < ${after.requestId}))`,
    );
  }
  return where;
}

/** One page, newest first, and the position after its last row when there is more. */
export async function readRequestLog(
  clickhouse: ClickHouseReader,
  orgId: string,
  query: RequestsQuery,
): Promise<{ rows: LogRow[]; next: Position | null }> {
  const statement = sql`SELECT request_id, occurred_at_ms, key_id, person_id, model, endpoint,
      input_tokens, output_tokens, fallback, latency_ms
    FROM requests FINAL
    WHERE ${joinSql(conditions(orgId, query), ' AND ')}
    ORDER BY occurred_at_ms DESC, request_id DESC
    LIMIT ${query.limit + 1}`;
  const result = await clickhouse.query({ query: statement.text, format: 'JSONEachRow' });
  const rows = await result.json<LogRow>();
  if (rows.length <= query.limit) return { rows, next: null };
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1]!;
  return { rows: page, next: { atMs: Number(last.occurred_at_ms), requestId: last.request_id } };
}

/** One request of the org by its id, or undefined (another org's, a run's stretch, or none). */
export async function readLoggedRequest(
  clickhouse: ClickHouseReader,
  orgId: string,
  requestId: string,
): Promise<LogRow | undefined> {
  const statement = sql`SELECT request_id, occurred_at_ms, key_id, person_id, model, endpoint,
      input_tokens, output_tokens, fallback, latency_ms
    FROM requests FINAL
    WHERE org_id = ${orgId} AND request_id = ${requestId} AND endpoint IN (${requestEndpoints()})
    LIMIT 1`;
  const result = await clickhouse.query({ query: statement.text, format: 'JSONEachRow' });
  const [row] = await result.json<LogRow>();
  return row;
}
