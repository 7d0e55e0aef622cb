import { createClickHouse } from '../platform/clickhouse.ts';
import { logger } from '../platform/logger.ts';
import { dropExpiredSpanPartitions } from './span-retention.ts';

// `npx tsx jobs/retention.ts`: the retention job, run once a day (or more often; it is idempotent).
// Each store's cleanup is one step below; a step that fails fails the run, so the scheduler retries.
const now = new Date();
const log = logger.child({ job: 'retention' });
const clickhouse = createClickHouse();

try {
  // ClickHouse: spans whose trace was first received more than 30 days ago (001, Limits).
  const dropped = await dropExpiredSpanPartitions(clickhouse, now);
  log.info({ dropped }, `dropped ${dropped.length} expired span partitions`);

  // Postgres: the ingest's admission ledger (spans already stored, spans per trace, deleted
  // traces) past the same retention goes here, as its own step.
} catch (error) {
  log.error({ err: error }, 'retention failed');
  process.exitCode = 1;
} finally {
  await clickhouse.close();
}
