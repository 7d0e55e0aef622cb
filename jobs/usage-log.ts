import { utcDay } from '../domain/billing/day.ts';
import type { DayTotals } from '../domain/billing/reconcile.ts';
import { type ClickHouseClient, joinSql, type SqlFragment, sql } from '../platform/clickhouse.ts';
import { topicEnd, withAdmin } from '../platform/kafka.ts';
import type { PgPool } from '../platform/postgres.ts';
import { reached, storedOffsets } from '../projections/postgres-offsets.ts';
import { usagePostgresGroupId } from '../projections/usage-postgres.ts';
import { topics } from '../schemas/events/topics.ts';
import type { BillingFilter } from '../stores/billing.ts';

// What reconciliation reads besides the rollups: the raw request log in ClickHouse, totalled per
// org, model and UTC day (FINAL, so a redelivered usage event counts once), and how far the two
// usage projections have got in the usage topic.

export const usageClickHouseGroupId = 'orrery-usage-clickhouse';
const dayMs = 86_400_000;

export async function readLogTotals(
  clickhouse: ClickHouseClient,
  filter: BillingFilter = {},
): Promise<(DayTotals & { fallbacks: number })[]> {
  const where: SqlFragment[] = [sql`1`];
  if (filter.orgIds)
    where.push(sql`org_id IN (${joinSql(filter.orgIds.map((id) => sql`${id}`).concat(sql`''`), ', ')})`);
  if (filter.from) where.push(sql`occurred_at_ms >= ${Date.parse(`${filter.from}T00:00:00Z`)}`);
  if (filter.to) where.push(sql`occurred_at_ms < ${Date.parse(`${filter.to}T00:00:00Z`) + dayMs}`);
  // intDiv of the milliseconds is the UTC day whatever the server's time zone.
  const statement = sql`SELECT org_id, model, intDiv(occurred_at_ms, ${dayMs}) AS day_number,
      count() AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
      sum(fallback) AS fallbacks, sum(seconds) AS seconds
    FROM requests FINAL
    WHERE ${joinSql(where, ' AND ')}
    GROUP BY org_id, model, day_number`;
  const result = await clickhouse.query({ query: statement.text, format: 'JSONEachRow' });
  const rows = await result.json<Record<string, string | number>>();
  return rows.map((row) => ({
    orgId: String(row.org_id),
    model: String(row.model),
    day: utcDay(Number(row.day_number) * dayMs),
    requests: Number(row.requests),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    fallbacks: Number(row.fallbacks),
    seconds: Number(row.seconds),
  }));
}

export interface UsageOffsets {
  /** The topic's end, per partition. */
  end: Map<number, bigint>;
  postgres: Map<number, bigint>;
  clickhouse: Map<number, bigint>;
}

export async function readUsageOffsets(pool: PgPool): Promise<UsageOffsets> {
  const topic = topics.usage.name;
  const [committed] = await withAdmin('orrery-reconcile', (admin) =>
    admin.fetchOffsets({ groupId: usageClickHouseGroupId, topics: [topic] }),
  );
  return {
    end: await topicEnd(topic),
    postgres: await storedOffsets(pool, usagePostgresGroupId, topic),
    clickhouse: new Map(
      (committed?.partitions ?? []).map((p) => [p.partition, BigInt(Math.max(Number(p.offset), 0))]),
    ),
  };
}

/** Both projections have read at least up to `end` in every partition. */
export function caughtUpTo(offsets: UsageOffsets, end: Map<number, bigint>): boolean {
  return reached(offsets.postgres, end) && reached(offsets.clickhouse, end);
}

/** Nothing is in flight: both projections are at the topic's end as it was read. */
export function quiet(offsets: UsageOffsets): boolean {
  return caughtUpTo(offsets, offsets.end);
}
