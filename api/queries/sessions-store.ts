import {
  type ClickHouseReader,
  hexId,
  idBytes,
  identifier,
  joinSql,
  type SqlFragment,
  sql,
} from '../../platform/clickhouse.ts';
import {
  hasCandidate,
  type ListedTrace,
  listedTrace,
  type TraceRow,
  traceAggregates,
  traceValue,
  traceValues,
} from './traces-store.ts';

// A session's and a user's traces (GET /api/sessions/:sessionId, /api/users/:userId), within one
// org, from the read models the trace list and a trace read: no table of their own.
//
// Their traces come from `trace_fragments` as the trace list's filter on a session or user reads
// them: the org's fragments whose candidate for the value is the one given name the traces that
// may have it, and their fragments, grouped by trace, give every value of each, the exact session
// or user among them (the least candidate, which a fragment of another trace value may beat). The
// fragments are ordered by start, not by session or user, and 18.16 has no skipping index; but the
// candidate test reads one narrow column of the org's fragments, and only the traces found are
// grouped, so the read grows with the traces of the session or user, not with the org.
//
// A trace's turn of the conversation (its input and output messages) is read from `spans`, by key,
// for the traces of one page only: input and output are most of the stored bytes.

/** The traces whose session or user is `given`, oldest first, with every trace-level value. */
export async function tracesWith(
  clickhouse: ClickHouseReader,
  orgId: string,
  value: 'sessionId' | 'userId',
  given: string,
): Promise<ListedTrace[]> {
  const column = traceValues[value];
  const query = sql`
    SELECT ${hexId('trace_id')} AS trace_hex, ${traceAggregates}
    FROM trace_fragments
    PREWHERE org_id = ${orgId} AND trace_id IN (
      SELECT trace_id FROM trace_fragments
      WHERE org_id = ${orgId} AND ${hasCandidate(column, given)})
    GROUP BY trace_id
    HAVING ${traceValue(column)} = ${given}
    ORDER BY trace_start, trace_id`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  return (await result.json<TraceRow>()).map(listedTrace);
}

/** One side of a turn: the span it is read from and what that span stored. */
export interface TurnSide {
  spanId: string;
  /** A generation's, or the root span's when no generation of the trace has one. */
  source: 'generation' | 'root';
  /** The stored JSON text: `{ messages: [...] }` or `{ value: ... }` (001, storage shape). */
  content: string;
  truncated: boolean;
}

export interface Turn {
  input: TurnSide | null;
  output: TurnSide | null;
}

/**
 * The order spans are told apart by: start, then as sent (the event's offset, the span's place in
 * it). Copies of a span sort together and store the same, so which one is read changes nothing.
 */
const spanOrder = sql`tuple(start_time_unix_nano, received_offset, received_index)`;

type Side = 'input' | 'output';

/**
 * Of the trace's spans that match `among` and stored `side`, the first (`argMinIf`) or the last
 * (`argMaxIf`) in `spanOrder`: its id, what it stored and whether that was cut, and how many such
 * spans there are (0: none, and the others are empty).
 */
function picked(
  alias: string,
  aggregate: 'argMinIf' | 'argMaxIf',
  side: Side,
  among: SqlFragment,
): SqlFragment {
  const when = sql`${among} AND isNotNull(${identifier(side)})`;
  const of = (value: SqlFragment) => sql`${identifier(aggregate)}(${value}, ${spanOrder}, ${when})`;
  const name = (suffix: string) => identifier(`${alias}_${suffix}`);
  return sql`countIf(${when}) AS ${name('count')},
    lower(hex(${of(identifier('span_id'))})) AS ${name('span')},
    ${of(sql`assumeNotNull(${identifier(side)})`)} AS ${name('content')},
    ${of(identifier(`${side}_truncated`))} AS ${name('truncated')}`;
}

const generation = sql`kind = 'generation'`;
const root = sql`parent_span_id = ''`;

/**
 * The turn of the conversation each trace is: the input of its first generation (by start) that
 * stored one, and the output of its last generation that stored one, which is the exchange a
 * person had with the model (an agent's later calls carry its tool results, its first the
 * person's words); with no generation, or none that stored them, the root span's, which holds the
 * request and the answer of the whole trace as the instrumentation saw them.
 */
const turnPicks = joinSql(
  [
    picked('generation_input', 'argMinIf', 'input', generation),
    picked('generation_output', 'argMaxIf', 'output', generation),
    picked('root_input', 'argMinIf', 'input', root),
    picked('root_output', 'argMinIf', 'output', root),
  ],
  ',\n    ',
);

interface SideColumns {
  count: string;
  span: string;
  content: string;
  truncated: number;
}

type TurnRow = { trace_hex: string } & Record<string, string | number>;

function sideOf(row: TurnRow, alias: string, source: TurnSide['source']): TurnSide | null {
  const columns = {
    count: row[`${alias}_count`],
    span: row[`${alias}_span`],
    content: row[`${alias}_content`],
    truncated: row[`${alias}_truncated`],
  } as SideColumns;
  if (Number(columns.count) === 0) return null;
  return {
    spanId: columns.span,
    source,
    content: columns.content,
    truncated: Number(columns.truncated) === 1,
  };
}

/**
 * The turn of each of `traceIds` (a page's, a few dozen at most), by trace id. A trace with no span
 * that stored an input or output has none: a turn of nulls.
 */
export async function conversationTurns(
  clickhouse: ClickHouseReader,
  orgId: string,
  traceIds: readonly string[],
): Promise<Map<string, Turn>> {
  if (traceIds.length === 0) return new Map();
  const query = sql`
    SELECT ${hexId('trace_id')} AS trace_hex,
    ${turnPicks}
    FROM spans
    PREWHERE org_id = ${orgId} AND trace_id IN (${joinSql(traceIds.map(idBytes), ', ')})
    GROUP BY trace_id`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  const turns = new Map<string, Turn>();
  for (const row of await result.json<TurnRow>())
    turns.set(row.trace_hex, {
      input: sideOf(row, 'generation_input', 'generation') ?? sideOf(row, 'root_input', 'root'),
      output: sideOf(row, 'generation_output', 'generation') ?? sideOf(row, 'root_output', 'root'),
    });
  return turns;
}
