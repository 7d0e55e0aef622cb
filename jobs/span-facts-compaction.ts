import { pathToFileURL } from 'node:url';
import { type ClickHouseClient, createClickHouse, sql } from '../platform/clickhouse.ts';
import { logger } from '../platform/logger.ts';
import {
  type CompactionPolicy,
  defaultCompactionPolicy,
  type PartitionParts,
  partitionsToCompact,
} from '../projections/span-facts-layout.ts';

// Settles `span_facts` (infra/migrations/clickhouse/0004_span_facts.sql): merges each receipt hour
// into one part once it is quiet, or once it has waited long enough, so the analytics read it
// without FINAL (api/queries/analytics-store.ts). OPTIMIZE … FINAL merges the parts there are when
// it starts; parts inserted meanwhile wait for the next run. Run by jobs/main.ts every minute, or
// by hand with `npx tsx jobs/span-facts-compaction.ts`.

/** Every partition of `span_facts` with its active parts' count, levels and times. */
async function partitionParts(clickhouse: ClickHouseClient): Promise<PartitionParts[]> {
  const result = await clickhouse.query({
    query: `SELECT partition, count() AS parts, min(level) AS min_level,
        toUnixTimestamp(max(modification_time)) AS newest,
        toUnixTimestamp(minIf(modification_time, level = 0)) AS oldest_insert, countIf(level = 0) AS inserts
      FROM system.parts
      WHERE database = currentDatabase() AND table = 'span_facts' AND active
      GROUP BY partition`,
    format: 'JSONEachRow',
  });
  const rows = await result.json<{
    partition: string;
    parts: string;
    min_level: number;
    newest: number;
    oldest_insert: number;
    inserts: string;
  }>();
  return rows.map((row) => ({
    partition: row.partition,
    parts: Number(row.parts),
    minLevel: Number(row.min_level),
    newestAt: new Date(Number(row.newest) * 1000),
    oldestInsertAt: Number(row.inserts) > 0 ? new Date(Number(row.oldest_insert) * 1000) : undefined,
  }));
}

/** Merges the hours due (partitionsToCompact) into one part each; returns their ids. */
export async function compactSpanFacts(
  clickhouse: ClickHouseClient,
  now = new Date(),
  policy: CompactionPolicy = defaultCompactionPolicy,
): Promise<string[]> {
  const due = partitionsToCompact(await partitionParts(clickhouse), now, policy);
  for (const partition of due) {
    // The partition key is a number (YYYYMMDDHH), so its value is written as one.
    await clickhouse.command({
      query: sql`OPTIMIZE TABLE span_facts PARTITION ${Number(partition)} FINAL`.text,
    });
  }
  return due;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const clickhouse = createClickHouse();
  try {
    const compacted = await compactSpanFacts(clickhouse, new Date(), { quietMs: 0, maxUnsettledMs: 0 });
    logger.info({ job: 'span-facts-compaction', compacted }, 'span facts compacted');
  } catch (error) {
    logger.error({ job: 'span-facts-compaction', err: error }, 'span facts compaction failed');
    process.exitCode = 1;
  } finally {
    await clickhouse.close();
  }
}
