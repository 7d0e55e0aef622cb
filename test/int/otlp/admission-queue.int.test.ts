import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdmissionQueue } from '../../../api/otlp/admission-queue.ts';
import {
  type IngestDeps,
  NormalizationFailed,
  type PendingSpans,
  pendingSpans,
} from '../../../api/otlp/ingest.ts';
import { EarlierGroupFailed } from '../../../api/otlp/org-admissions.ts';
import { limits } from '../../../domain/tracing/limits.ts';
import type { OtlpSpan } from '../../../domain/tracing/otlp.ts';
import { createPgPool } from '../../../platform/postgres.ts';
import type { EventProducer } from '../../../producers/producer.ts';
import { AdmissionLeases } from '../../../stores/admission-lease.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { llmSpan } from '../../harness/tracing.ts';

// One org's requests in an API process: a few groups under way at once, each decided against the
// ledger and every earlier group, recorded in order; a group that fails fails those decided
// against it; a request that waits is normalized meanwhile; the org's lease is kept between groups
// and passes to another process that wants it.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: false });
});
afterAll(() => platform.stop());

const spansInLedger = async (orgId: string) =>
  (
    await platform.pool.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(span_ids)), 0)::int AS n FROM ingest_traces WHERE org_id = $1',
      [orgId],
    )
  ).rows[0]!.n;

const monthSpans = async (orgId: string) =>
  (
    await platform.pool.query<{ n: number }>(
      'SELECT coalesce(sum(spans), 0)::int AS n FROM ingest_monthly WHERE org_id = $1',
      [orgId],
    )
  ).rows[0]!.n;

/** A queue on the test platform's Postgres and Kafka, as the API makes one. */
const newQueue = (deps: Partial<IngestDeps> = {}) =>
  new AdmissionQueue({
    pool: platform.pool,
    recordPool: platform.pool,
    producer: platform.producer,
    leases: new AdmissionLeases(platform.pool, 30_000),
    leaseWaitMs: 5_000,
    limits,
    ...deps,
  });

const sent = (spans: OtlpSpan[]) => pendingSpans(request(spans));
const llmSpans = (count: number) => Array.from({ length: count }, () => llmSpan());

it('admits a group whose one request fails to normalize: that one fails, the others are kept', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const faulty: PendingSpans = {
    ...sent(llmSpans(2)),
    normalize: () => {
      throw new TypeError('a bug in normalization');
    },
  };
  const [before, failed, after] = await Promise.allSettled([
    queue.admit(orgId, sent(llmSpans(3))),
    queue.admit(orgId, faulty),
    queue.admit(orgId, sent(llmSpans(4))),
  ]);
  expect(before).toMatchObject({ status: 'fulfilled', value: { rejectedSpans: 0 } });
  expect(after).toMatchObject({ status: 'fulfilled', value: { rejectedSpans: 0 } });
  expect(failed?.status).toBe('rejected');
  expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(NormalizationFailed);
  expect(await spansInLedger(orgId)).toBe(3 + 4);
  await queue.close();
});

it('decides each group against the groups under way before it: a span sent twice is kept once', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const spans = llmSpans(5);
  // Three at once: each its own group, all under way together.
  const admissions = await Promise.all([
    queue.admit(orgId, sent(spans)),
    queue.admit(orgId, sent([...spans.slice(0, 2), ...llmSpans(1)])),
    queue.admit(orgId, sent(spans.slice(3))),
  ]);
  expect(admissions.map((admission) => admission.acceptedSpans)).toEqual([5, 1, 0]);
  expect(admissions[1]!.verdicts).toEqual(['duplicate', 'duplicate', 'accepted']);
  expect(await spansInLedger(orgId)).toBe(6);
  expect(await monthSpans(orgId)).toBe(6);
  await queue.close();
});

it('records the groups in the order formed, whichever gets its connection first', async () => {
  // The first group's connection comes late: were the later groups' statements run first, each
  // would hold the lease's row that the other waits for.
  const recordPool = createPgPool(3);
  const connect = recordPool.connect.bind(recordPool);
  let first = true;
  recordPool.connect = (async () => {
    if (first) {
      first = false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return connect();
  }) as typeof recordPool.connect;
  const queue = newQueue({ recordPool });
  const orgId = `org_queue_${randomUUID()}`;
  const admissions = await Promise.all([1, 2, 3].map(() => queue.admit(orgId, sent(llmSpans(2)))));
  expect(admissions.map((admission) => admission.acceptedSpans)).toEqual([2, 2, 2]);
  expect(await spansInLedger(orgId)).toBe(6);
  await queue.close();
  await recordPool.end();
});

it('fails the groups decided against a group Kafka refused, and starts afresh after them', async () => {
  let refuse = true;
  const producer: EventProducer = {
    ...platform.producer,
    send: async (stream, records, options) => {
      if (refuse) {
        // The first send is refused once the next group has been decided counting its spans.
        refuse = false;
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error('Kafka refused the spans');
      }
      return platform.producer.send(stream, records, options);
    },
  };
  const queue = newQueue({ producer });
  const orgId = `org_queue_${randomUUID()}`;
  const spans = llmSpans(3);
  const [refused, decidedAgainst] = await Promise.allSettled([
    queue.admit(orgId, sent(spans)),
    queue.admit(orgId, sent(spans)),
  ]);
  expect(refused).toMatchObject({ status: 'rejected', reason: { message: 'Kafka refused the spans' } });
  expect(decidedAgainst.status).toBe('rejected');
  expect((decidedAgainst as PromiseRejectedResult).reason).toBeInstanceOf(EarlierGroupFailed);
  expect(await spansInLedger(orgId)).toBe(0);
  // Sent again, the spans are new to the ledger and kept.
  expect((await queue.admit(orgId, sent(spans))).acceptedSpans).toBe(3);
  expect(await spansInLedger(orgId)).toBe(3);
  await queue.close();
});

it('normalizes a request while it waits behind its org groups under way, once', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const prepared: string[] = [];
  const watched = (name: string, count: number): PendingSpans => {
    const spans = sent(llmSpans(count));
    return {
      ...spans,
      prepare: () => {
        prepared.push(name);
        spans.prepare();
      },
    };
  };
  const waiting = watched('waiting', 3);
  // Three groups under way at most: the first three run at once (normalized in their groups),
  // the fourth is prepared while it waits.
  const running = [1, 2, 3].map((n) => queue.admit(orgId, watched(`running ${n}`, 1)));
  const fourth = queue.admit(orgId, waiting);
  for (const admission of await Promise.all(running)) expect(admission.rejectedSpans).toBe(0);
  expect((await fourth).rejectedSpans).toBe(0);
  expect(prepared).toEqual(['waiting']);
  expect(waiting.normalize()).toBe(waiting.normalize());
  expect(await spansInLedger(orgId)).toBe(3 + 3);
  await queue.close();
});

it('keeps the org lease between groups, gives it back once quiet, and passes it to a process that wants it', async () => {
  const orgId = `org_queue_${randomUUID()}`;
  const leaseOf = async () =>
    (
      await platform.pool.query<{ holder: string; held: boolean }>(
        'SELECT holder, expires_at > now() AS held FROM admission_leases WHERE org_id = $1',
        [orgId],
      )
    ).rows[0];
  const here = new AdmissionLeases(platform.pool, 30_000, `test-${randomUUID()}`);
  const elsewhere = new AdmissionLeases(platform.pool, 30_000, `test-${randomUUID()}`);
  const queue = newQueue({ leases: here, leaseIdleMs: 60_000 });
  const other = newQueue({ leases: elsewhere, leaseIdleMs: 300 });
  await queue.admit(orgId, sent(llmSpans(1)));
  expect(await leaseOf()).toEqual({ holder: here.holder, held: true });
  // Another process's request marks the lease wanted; this process's next group gives it back
  // once recorded, and the other's request is then admitted.
  const elsewhereAdmitted = other.admit(orgId, sent(llmSpans(2)));
  await expect
    .poll(
      async () =>
        (
          await platform.pool.query(
            'SELECT 1 FROM admission_leases WHERE org_id = $1 AND wanted_at IS NOT NULL',
            [orgId],
          )
        ).rowCount,
    )
    .toBe(1);
  expect((await queue.admit(orgId, sent(llmSpans(1)))).acceptedSpans).toBe(1);
  expect((await elsewhereAdmitted).acceptedSpans).toBe(2);
  // Quiet for its idle while, the other process gives the lease back.
  await expect.poll(leaseOf, { timeout: 5_000 }).toEqual({ holder: elsewhere.holder, held: false });
  expect(await spansInLedger(orgId)).toBe(4);
  await Promise.all([queue.close(), other.close()]);
});
