import { pathToFileURL } from 'node:url';
import { idempotencyKeyLifetimeMs } from '../domain/idempotency.ts';
import { countedRequestsKeptMs } from '../domain/usage/identity.ts';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool, inTransaction, type PgPool } from '../platform/postgres.ts';
import { topics } from '../schemas/events/topics.ts';
import { forgetOldGroups } from '../stores/admission-groups.ts';
import { deleteExpiredDeviceLogins } from '../stores/device-logins.ts';
import { forgetExpiredTraces } from '../stores/ingest-ledger.ts';
import { deleteEndedWindows } from '../stores/rate-limits.ts';
import { deleteExpiredSessions } from '../stores/sessions.ts';
import { dropExpiredSpanPartitions, retentionCutoff } from './span-retention.ts';

// The retention job (001, Limits: Retention), idempotent: run by jobs/main.ts every hour, or by
// hand with `npx tsx jobs/retention.ts`. Each store's cleanup is one step; a step that fails fails
// the run, and the next run does it again.

export interface RetentionResult {
  droppedPartitions: string[];
  forgottenTraces: number;
  /** Admission groups' fates older than any spans event still on the topic. */
  forgottenGroups: number;
  /** Idempotency keys past their 24 hours, and counted request ids past their week. */
  forgottenRequestIds: number;
  /** Sessions past their expiry, and command-line logins a day past theirs. */
  endedLogins: number;
  /** Counts of login attempts whose window has ended (on the database's clock, not `now`). */
  endedAttemptWindows: number;
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
  // Postgres: the admission groups' fates, once the topic no longer holds their events.
  const forgottenGroups = await forgetOldGroups(
    stores.pool,
    new Date(now.getTime() - topics.spans.retentionMs),
  );
  // Postgres: what makes a retried request count once, once no retry can come any more.
  const keys = await stores.pool.query('DELETE FROM inference_idempotency WHERE created_at < $1', [
    new Date(now.getTime() - idempotencyKeyLifetimeMs),
  ]);
  const counted = await stores.pool.query('DELETE FROM usage_counted WHERE counted_at < $1', [
    new Date(now.getTime() - countedRequestsKeptMs),
  ]);
  // Postgres: dashboard sessions and command-line logins that can no longer be used.
  const endedLogins =
    (await deleteExpiredSessions(stores.pool, now)) + (await deleteExpiredDeviceLogins(stores.pool, now));
  // Postgres: attempt counts of windows that have ended, which the next attempt would restart anyway.
  const endedAttemptWindows = await deleteEndedWindows(stores.pool);
  return {
    droppedPartitions,
    forgottenTraces,
    forgottenGroups,
    forgottenRequestIds: (keys.rowCount ?? 0) + (counted.rowCount ?? 0),
    endedLogins,
    endedAttemptWindows,
  };
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
