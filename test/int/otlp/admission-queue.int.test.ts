import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdmissionQueue } from '../../../api/otlp/admission-queue.ts';
import { NormalizationFailed, type PendingSpans, pendingSpans } from '../../../api/otlp/ingest.ts';
import { limits } from '../../../domain/tracing/limits.ts';
import { AdmissionLeases } from '../../../stores/admission-lease.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { llmSpan } from '../../harness/tracing.ts';

// Requests of one org that wait together are admitted as one group, each normalized while the
// ledger is read or while it waits: a request whose normalization fails gets its own error, the
// others go on.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

const spansInLedger = async (orgId: string) =>
  (
    await platform.pool.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(span_ids)), 0)::int AS n FROM ingest_traces WHERE org_id = $1',
      [orgId],
    )
  ).rows[0]!.n;

/** A queue on the test platform's Postgres and Kafka, as the API makes one. */
const newQueue = () =>
  new AdmissionQueue({
    pool: platform.pool,
    recordPool: platform.pool,
    producer: platform.producer,
    leases: new AdmissionLeases(platform.pool, 30_000),
    leaseWaitMs: 5_000,
    limits,
  });

it('admits a group whose one request fails to normalize: that one fails, the others are kept', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const sent = (count: number) => pendingSpans(request(Array.from({ length: count }, () => llmSpan())));
  const faulty: PendingSpans = {
    ...sent(2),
    normalize: () => {
      throw new TypeError('a bug in normalization');
    },
  };
  // The first request runs alone; the three after it wait for it and form one group.
  const first = queue.admit(orgId, sent(1));
  const group = [queue.admit(orgId, sent(3)), queue.admit(orgId, faulty), queue.admit(orgId, sent(4))];
  expect((await first).rejectedSpans).toBe(0);
  const [before, failed, after] = await Promise.allSettled(group);
  expect(before).toMatchObject({ status: 'fulfilled', value: { rejectedSpans: 0 } });
  expect(after).toMatchObject({ status: 'fulfilled', value: { rejectedSpans: 0 } });
  expect(failed?.status).toBe('rejected');
  expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(NormalizationFailed);
  expect(await spansInLedger(orgId)).toBe(1 + 3 + 4);
});

it('normalizes a request while it waits behind its org running group, once', async () => {
  const queue = newQueue();
  const orgId = `org_queue_${randomUUID()}`;
  const prepared: string[] = [];
  const watched = (name: string, count: number): PendingSpans => {
    const spans = pendingSpans(request(Array.from({ length: count }, () => llmSpan())));
    return {
      ...spans,
      prepare: () => {
        prepared.push(name);
        spans.prepare();
      },
    };
  };
  const waiting = watched('waiting', 3);
  const first = queue.admit(orgId, watched('first', 1));
  const second = queue.admit(orgId, waiting);
  // The first runs at once (normalized in its admission); the second is prepared while it waits.
  expect((await first).rejectedSpans).toBe(0);
  expect(prepared).toEqual(['waiting']);
  expect((await second).rejectedSpans).toBe(0);
  expect(waiting.normalize()).toBe(waiting.normalize());
  expect(await spansInLedger(orgId)).toBe(1 + 3);
});
