import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type IngestDeps, pendingSpans } from '../../../api/otlp/ingest.ts';
import { admissionFates } from '../../../consumers/projections.ts';
import { type EventProducer, PublishFailed } from '../../../producers/producer.ts';
import { keptOnly, undecidedForMs } from '../../../projections/admission-gate.ts';
import { dropUndecidedGroups, groupFates } from '../../../stores/admission-groups.ts';
import { AdmissionLeases } from '../../../stores/admission-lease.ts';
import { recordAccepted } from '../../../stores/ingest-ledger.ts';
import { testAdmissionQueue } from '../../harness/admission-queue.ts';
import { ledgerSpans, spanKey, storedOffsets } from '../../harness/admission-records.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { spanRecord } from '../../harness/span-records.ts';
import { llmSpan } from '../../harness/tracing.ts';

// A 503 means nothing was stored (issue 49, item 1): a group that was not kept (Kafka's answer
// lost, its record not committed) has its spans left out of the read models even when Kafka holds
// them, and the request sent again is stored once and counted once. The platform's own consumers
// project the spans here; only the acknowledgement of a publish that Kafka took is lost, on purpose.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

/** The platform's producer, but that the next `lose` publishes are taken by Kafka and reported failed. */
function losingAcknowledgements(): { producer: EventProducer; lose: (count: number) => void } {
  let losing = 0;
  const producer: EventProducer = {
    ...platform.producer,
    sendFramed: async (stream, messages, options) => {
      await platform.producer.sendFramed(stream, messages, options);
      if (losing > 0) {
        losing -= 1;
        throw new PublishFailed('Kafka did not acknowledge within 1700 ms');
      }
    },
  };
  return { producer, lose: (count) => (losing = count) };
}

const newQueue = (deps: Partial<IngestDeps> = {}) => testAdmissionQueue(platform, deps);

it('leaves out of the read models the spans of a request answered 503 that Kafka took, and stores the resend once', async () => {
  const { producer, lose } = losingAcknowledgements();
  const queue = newQueue({ producer });
  const orgId = `org_truth_${randomUUID()}`;
  const spans = Array.from({ length: 4 }, () => llmSpan());
  lose(1);
  await expect(queue.admit(orgId, pendingSpans(request(spans)))).rejects.toBeInstanceOf(PublishFailed);
  expect(await ledgerSpans(platform.pool, orgId)).toEqual({ traces: 0, month: 0 });
  // The exporter sends the same body again: admitted anew, and now kept.
  expect((await queue.admit(orgId, pendingSpans(request(spans)))).acceptedSpans).toBe(4);
  // Every row of every span came in one message, the resend's: the first copy, on the same
  // partitions and before it, was read and left out.
  const offsetsBySpan = await storedOffsets(platform.clickhouse, orgId, spans.map(spanKey));
  expect([...offsetsBySpan.values()].map((offsets) => offsets.size)).toEqual(spans.map(() => 1));
  expect([...offsetsBySpan.keys()].sort()).toEqual(spans.map(spanKey).sort());
  expect(await ledgerSpans(platform.pool, orgId)).toEqual({ traces: 4, month: 4 });
  await queue.close();
});

it("fails a group's record, keeping nothing, when its consumer already decided it dropped", async () => {
  const orgId = `org_truth_${randomUUID()}`;
  const leases = new AdmissionLeases(platform.pool, 30_000);
  const lease = await leases.acquire(orgId, 0);
  const groupId = randomUUID();
  // The consumer found the group undecided past its time: the API's commit can no longer keep it.
  await dropUndecidedGroups(platform.pool, [groupId]);
  const record = {
    groupId,
    month: '2026-12-01',
    now: new Date(),
    traceIds: [llmSpan().traceId],
    spanIds: ['00f067aa0ba902b7'],
    knownTraces: new Set<string>(),
    bytes: 100,
  };
  await expect(recordAccepted(platform.pool, lease, record, async () => undefined)).rejects.toMatchObject({
    code: '23505',
  });
  expect(await ledgerSpans(platform.pool, orgId)).toEqual({ traces: 0, month: 0 });
  expect(await groupFates(platform.pool, [groupId])).toEqual(new Map([[groupId, false]]));
  // And a group recorded first stays kept: a later drop finds it decided.
  const kept = { ...record, groupId: randomUUID() };
  await recordAccepted(platform.pool, lease, kept, async () => undefined);
  await dropUndecidedGroups(platform.pool, [kept.groupId]);
  expect(await groupFates(platform.pool, [kept.groupId])).toEqual(new Map([[kept.groupId, true]]));
  await leases.release(lease);
  await leases.close();
});

it('waits for an undecided group, projects a kept one and events without a group, and drops one it waited too long for', async () => {
  const stored = admissionFates(platform.pool);
  let reads = 0;
  const fates = {
    ...stored,
    read: (ids: readonly string[]) => {
      reads += 1;
      return stored.read(ids);
    },
  };
  const orgId = `org_truth_${randomUUID()}`;
  const [kept, dropped, decidedLater, late] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await platform.pool.query('INSERT INTO admission_groups (group_id, kept) VALUES ($1, true), ($2, false)', [
    kept,
    dropped,
  ]);
  const event = (admissionId: string | undefined) => ({
    event: spanRecord({
      type: 'SpansReceived',
      eventId: randomUUID(),
      orgId,
      occurredAt: new Date(),
      traces: [],
      ...(admissionId ? { admissionId } : {}),
    }),
  });
  const batch = [event(kept), event(dropped), event(undefined), event(decidedLater), event(late)];
  // The projection's own clock, moved on below rather than waited out.
  let movedOnMs = 0;
  let settled = false;
  const filtering = keptOnly(batch, fates, () => Date.now() + movedOnMs).finally(() => {
    settled = true;
  });
  await eventually(async () => (reads >= 2 ? true : undefined), 10_000, 'the projection asking again');
  expect(settled).toBe(false);
  expect(await groupFates(platform.pool, [late])).toEqual(new Map());
  // One group is kept by its API's commit while the projection waits; the other never is.
  await platform.pool.query('INSERT INTO admission_groups (group_id, kept) VALUES ($1, true)', [
    decidedLater,
  ]);
  movedOnMs = undecidedForMs;
  expect(await filtering).toEqual([batch[0], batch[2], batch[3]]);
  expect(await groupFates(platform.pool, [late, decidedLater])).toEqual(
    new Map([
      [late, false],
      [decidedLater, true],
    ]),
  );
});
