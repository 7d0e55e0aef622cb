import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type IngestDeps,
  NormalizationFailed,
  type PendingSpans,
  pendingSpans,
} from '../../../api/otlp/ingest.ts';
import { limits } from '../../../domain/tracing/limits.ts';
import type { OtlpSpan } from '../../../domain/tracing/otlp.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { createEventProducer, type EventProducer } from '../../../producers/producer.ts';
import { AdmissionLeases } from '../../../stores/admission-lease.ts';
import { testAdmissionQueue } from '../../harness/admission-queue.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { llmSpan } from '../../harness/tracing.ts';

// One org's requests in an API process: one group at a time, each decided against the ledger its
// predecessors left; a request that waits is normalized meanwhile; a refused publish records
// nothing; the org's lease is kept between groups and handed to another process that waits for it.

// What an API process's admission uses of the platform: Postgres and the producer.
let platform: { pool: PgPool; producer: EventProducer };
beforeAll(async () => {
  platform = { pool: createPgPool(5), producer: await createEventProducer('orrery-test') };
});
afterAll(async () => {
  await platform.producer.disconnect();
  await platform.pool.end();
});

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

const newQueue = (deps: Partial<IngestDeps> = {}) => testAdmissionQueue(platform, deps);

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

it('decides each request against the ones before it: a span sent twice is kept once', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const spans = llmSpans(5);
  // Three at once: the first runs alone, the two after it wait for it and form one group.
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

it('records nothing of a group Kafka refused, and admits its spans when they are sent again', async () => {
  let refuse = true;
  const producer: EventProducer = {
    ...platform.producer,
    sendFramed: async (stream, messages, options) => {
      if (refuse) {
        refuse = false;
        throw new Error('Kafka refused the spans');
      }
      return platform.producer.sendFramed(stream, messages, options);
    },
  };
  const queue = newQueue({ producer });
  const orgId = `org_queue_${randomUUID()}`;
  const spans = llmSpans(3);
  await expect(queue.admit(orgId, sent(spans))).rejects.toThrow('Kafka refused the spans');
  expect(await spansInLedger(orgId)).toBe(0);
  expect((await queue.admit(orgId, sent(spans))).acceptedSpans).toBe(3);
  expect(await spansInLedger(orgId)).toBe(3);
  await queue.close();
});

it('normalizes a request while it waits behind its org running group, once', async () => {
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
  // The first runs at once (normalized in its group); the second is prepared while it waits.
  const first = queue.admit(orgId, watched('first', 1));
  const second = queue.admit(orgId, waiting);
  expect((await first).rejectedSpans).toBe(0);
  expect(prepared).toEqual(['waiting']);
  expect((await second).rejectedSpans).toBe(0);
  expect(waiting.normalize()).toBe(waiting.normalize());
  expect(await spansInLedger(orgId)).toBe(1 + 3);
  await queue.close();
});

it('keeps the org lease between groups, gives it back once quiet, and hands it to a process that waits for it', async () => {
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
  // Another process's request puts it in the org's line for the lease; this process's next group
  // hands the lease over in its recording, and the other's request is then admitted.
  const elsewhereAdmitted = other.admit(orgId, sent(llmSpans(2)));
  await expect
    .poll(
      async () =>
        (
          await platform.pool.query(
            'SELECT 1 FROM admission_lease_wanters WHERE org_id = $1 AND holder = $2',
            [orgId, elsewhere.holder],
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

it('gives the lease to a process waiting for it after a group that records nothing', async () => {
  const orgId = `org_queue_${randomUUID()}`;
  // An org past its month: every span is refused, so no group records, and no recording hands
  // the lease over; the group's ledger read says another process waits.
  const spent = { ...limits, monthlySpans: 0 };
  const here = new AdmissionLeases(platform.pool, 30_000, `test-${randomUUID()}`);
  const elsewhere = new AdmissionLeases(platform.pool, 30_000, `test-${randomUUID()}`);
  const queue = newQueue({ leases: here, leaseIdleMs: 60_000, limits: spent });
  const other = newQueue({ leases: elsewhere, leaseWaitMs: 3_000, limits: spent });
  expect((await queue.admit(orgId, sent(llmSpans(1)))).rejectedSpans).toBe(1);
  const elsewhereAdmitted = other.admit(orgId, sent(llmSpans(2)));
  await expect
    .poll(
      async () =>
        (
          await platform.pool.query(
            'SELECT 1 FROM admission_lease_wanters WHERE org_id = $1 AND holder = $2',
            [orgId, elsewhere.holder],
          )
        ).rowCount,
    )
    .toBe(1);
  expect((await queue.admit(orgId, sent(llmSpans(1)))).rejectedSpans).toBe(1);
  // Without being given the lease it would wait for this process's idle minute, past its 3 s.
  expect((await elsewhereAdmitted).rejectedSpans).toBe(2);
  await Promise.all([queue.close(), other.close()]);
});

it('fails the groups that would start while a store admission needs is away, and admits again once it is back', async () => {
  let away: string | undefined = 'postgres';
  const queue = newQueue({ away: () => away });
  const orgId = `org_queue_${randomUUID()}`;
  const refused = await Promise.allSettled([
    queue.admit(orgId, sent(llmSpans(2))),
    queue.admit(orgId, sent(llmSpans(3))),
  ]);
  expect(refused.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  expect(String((refused[0] as PromiseRejectedResult).reason)).toContain('postgres is away');
  expect(await spansInLedger(orgId)).toBe(0);
  away = undefined;
  expect(await queue.admit(orgId, sent(llmSpans(4)))).toMatchObject({ acceptedSpans: 4 });
  expect(await spansInLedger(orgId)).toBe(4);
  await queue.close();
});
