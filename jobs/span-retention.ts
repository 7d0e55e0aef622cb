import { limits } from '../domain/tracing/limits.ts';
import { type ClickHouseClient, identifier, sql } from '../platform/clickhouse.ts';
import { receiptDay } from '../projections/span-facts-layout.ts';

// Retention of stored spans (001, Limits: "30 days from the moment the first span of the trace was
// received; spans arriving later are deleted with the trace"). `spans` is partitioned by the UTC
// day its trace was first received, so a trace's spans share one partition and go together, and
// retention drops whole partitions: cheap, and no mutation. The tables written beside the spans are
// partitioned by the same receipt, `trace_fragments` by day and `span_facts` by hour (a
// day's 24 hours go with it), so the same traces leave every table at once.

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Traces first received before this instant are past retention, with every span of theirs: the
 * end of the UTC day 31 days ago, so a trace is never dropped before its 30 days are up, and its
 * spans in ClickHouse and its entries in the admission ledger go at the same moment.
 */
export function retentionCutoff(now: Date): Date {
  const dayStart = Math.floor((now.getTime() - (limits.retentionDays + 1) * dayMs) / dayMs) * dayMs;
  return new Date(dayStart + dayMs);
}

/** A partition's day from its id, `YYYYMMDD` (toYYYYMMDD of the trace's first receipt, UTC). */
export function partitionDay(partition: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(partition);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const day = new Date(Date.UTC(year, month, date));
  // Date.UTC rolls 2026-02-30 over into March: such an id is no day.
  return day.getUTCMonth() === month && day.getUTCDate() === date ? day : undefined;
}

/**
 * Expired once even its last trace (first received at the day's last instant) is past 30 days:
 * the day's end plus 30 days is not after `now`. A partition is never dropped early, so spans
 * live 30 to 31 days, as long as the spans topic keeps them.
 */
export function isPartitionExpired(partition: string, now: Date): boolean {
  const day = partitionDay(partition);
  if (!day) return false;
  return day.getTime() + dayMs <= retentionCutoff(now).getTime();
}

/** The tables partitioned by receipt, and how each names a partition's UTC day (`YYYYMMDD`). */
const receiptPartitioned = [
  { table: 'spans', day: (partition: string) => partition },
  { table: 'trace_fragments', day: (partition: string) => partition },
  { table: 'span_facts', day: receiptDay },
] as const;

/**
 * Drops every expired partition of `spans`, `trace_fragments` and `span_facts`; returns the UTC
 * days dropped (`YYYYMMDD`), oldest first.
 */
export async function dropExpiredSpanPartitions(clickhouse: ClickHouseClient, now: Date): Promise<string[]> {
  const days = new Set<string>();
  for (const { table, day } of receiptPartitioned) {
    const result = await clickhouse.query({
      query: sql`SELECT DISTINCT partition FROM system.parts
        WHERE database = currentDatabase() AND table = ${table} AND active ORDER BY partition`.text,
      format: 'JSONEachRow',
    });
    const partitions = (await result.json<{ partition: string }>()).map((row) => row.partition);
    for (const partition of partitions) {
      if (!isPartitionExpired(day(partition), now)) continue;
      // The partition keys are numbers (YYYYMMDD, YYYYMMDDHH), so their values are written as such.
      await clickhouse.command({
        query: sql`ALTER TABLE ${identifier(table)} DROP PARTITION ${Number(partition)}`.text,
      });
      days.add(day(partition));
    }
  }
  return [...days].sort();
}
