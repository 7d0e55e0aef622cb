import type { OtlpSpan } from '../../domain/tracing/otlp.ts';
import { type ClickHouseClient, sql } from '../../platform/clickhouse.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { eventually } from './eventually.ts';

// What an admission left behind, for the tests that check every answer against it (issue 49,
// item 1): the spans read model's rows, by the message each came in, and the ingest ledger's counts.

/** A span's key as the checks compare them: `trace:span`. */
export const spanKey = (span: OtlpSpan) => `${span.traceId}:${span.spanId}`;

/**
 * Once every key of `expected` is stored for the org: each stored span's messages (their offsets
 * on the spans topic). One offset per span means one copy of it was projected.
 */
export async function storedOffsets(
  clickhouse: ClickHouseClient,
  orgId: string,
  expected: readonly string[],
): Promise<Map<string, Set<string>>> {
  const rows = await eventually(
    async () => {
      const result = await clickhouse.query({
        query: sql`SELECT concat(lower(hex(trace_id)), ':', lower(hex(span_id))) AS key,
                          toString(received_offset) AS offset
                     FROM spans WHERE org_id = ${orgId}`.text,
        format: 'JSONEachRow',
      });
      const found = await result.json<{ key: string; offset: string }>();
      return new Set(found.map((row) => row.key)).size === new Set(expected).size ? found : undefined;
    },
    30_000,
    'the spans projected',
  );
  const offsets = new Map<string, Set<string>>();
  for (const row of rows) offsets.set(row.key, (offsets.get(row.key) ?? new Set()).add(row.offset));
  return offsets;
}

/** The ledger's count of the org's spans: in its traces' rows, and in its monthly total. */
export async function ledgerSpans(pool: PgPool, orgId: string): Promise<{ traces: number; month: number }> {
  const { rows } = await pool.query<{ traces: number; month: number }>(
    `SELECT (SELECT coalesce(sum(cardinality(span_ids)), 0)::int FROM ingest_traces WHERE org_id = $1) AS traces,
            (SELECT coalesce(sum(spans), 0)::int FROM ingest_monthly WHERE org_id = $1) AS month`,
    [orgId],
  );
  return rows[0]!;
}
