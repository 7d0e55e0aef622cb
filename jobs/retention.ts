import { pathToFileURL } from 'node:url';
import { forgetExpiredTraces } from '../api/otlp/ledger.ts';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool, inTransaction, type PgPool } from '../platform/postgres.ts';
import { dropExpiredSpanPartitions, retentionCutoff } from './span-retention.ts';

// The retention job (001, Limits: Retention), idempotent: run by jobs/main.ts every hour, or by
// hand with `npx tsx jobs/retention.ts`. Each store's cleanup is one step; a step that fails fails
// the run, and the next run does it again.

export interface RetentionResult {
  droppedPartitions: string[];
  forgottenTraces: number;
}

export async function runRetention(
  stores: { clickhouse: ClickHouseClient; pool: PgPool },
  now = new Date(),
): Promise<RetentionResult> {
  // ClickHouse: whole partitions of spans whose trace was first received past retention.
  const droppedPartitions = await dropExpiredSpanPartitions(stores.clickhouse, now);
  // Postgres: the admission ledger's entries for the same traces, so their ids start afresh. No
  // org lock: an admission racing with this only sees an expired trace as new, which it is.
  const forgottenTraces = await inTransaction(stores.pool, (client) =>
    forgetExpiredTraces(client, retentionCutoff(now), now),
  );
  return { droppedPartitions, forgottenTraces };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const clickhouse = createClickHouse();
  const pool = createPgPool(2);
  try {
    const result = await runRetention({ clickhouse, pool });
    logger.info({ job: 'retention', ...result }, 'retention done');
  } catch (error) {
    logger.error({ job: 'retention', err: error }, 'retention failed');
    process.exitCode = 1;
  } finally {
    await Promise.all([clickhouse.close(), pool.end()]);
  }
}
