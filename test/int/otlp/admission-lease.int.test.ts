import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { AdmissionLeases, LeaseLost, LeaseUnavailable } from '../../../stores/admission-lease.ts';
import { recordAccepted } from '../../../stores/ingest-ledger.ts';

// The org's admission lease between API processes (two holders here stand for two processes):
// one admits at a time; a recording renews the lease and says whether another holder wants it; a
// lease given back or expired passes on, and a holder that lost its lease records nothing. A
// record is committed only once Kafka acknowledged the spans.

let pool: PgPool;
beforeAll(() => {
  pool = createPgPool(4);
});
afterAll(() => pool.end());

const ttlMs = 30_000;
const newTraceId = () => randomUUID().replace(/-/g, '');
const accepted = (traceId: string) => ({
  month: '2026-11-01',
  now: new Date(),
  traceIds: [traceId],
  spanIds: ['00f067aa0ba902b7'],
  knownTraces: new Set<string>(),
  bytes: 100,
});

/** Kafka's acknowledgement of the recorded spans, here already given. */
const delivered = () => Promise.resolve();

const spansOf = async (orgId: string) =>
  (
    await pool.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(span_ids)), 0)::int AS n FROM ingest_traces WHERE org_id = $1',
      [orgId],
    )
  ).rows[0]?.n;

/** Whether a recording statement has run and not yet ended: it locks the lease's row (renewing it). */
const leaseRowLocked = (orgId: string) =>
  pool.query('SELECT 1 FROM admission_leases WHERE org_id = $1 FOR UPDATE NOWAIT', [orgId]).then(
    () => false,
    (error: { code?: string }) => error.code === '55P03',
  );

const holders = () => [
  new AdmissionLeases(pool, ttlMs, `test-${randomUUID()}`),
  new AdmissionLeases(pool, ttlMs, `test-${randomUUID()}`),
];

it('lets one holder at a time admit an org; a recording keeps the lease and tells that another wants it', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, other] = holders();
  const held = await one!.acquire(orgId, 0);
  const fresh = await recordAccepted(pool, held, accepted(newTraceId()), delivered);
  expect(fresh.wanted).toBe(false);
  // The other holder finds the lease held, and marks it wanted.
  await expect(other!.acquire(orgId, 300)).rejects.toBeInstanceOf(LeaseUnavailable);
  // Another org is not held up.
  await other!.release(await other!.acquire(`${orgId}-elsewhere`, 0));
  const renewed = await recordAccepted(pool, held, accepted(newTraceId()), delivered);
  expect(renewed.wanted).toBe(true);
  expect(await spansOf(orgId)).toBe(2);
  // Given back, the lease passes on at once.
  await one!.release(held);
  await other!.release(await other!.acquire(orgId, 0));
});

it('passes an expired lease on, and its old holder then records nothing', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const stalled = new AdmissionLeases(pool, 200, `test-${randomUUID()}`);
  const [, other] = holders();
  const lost = await stalled.acquire(orgId, 0);
  // The other holder waits until the stalled one's lease has expired, then takes it.
  const taken = await other!.acquire(orgId, 5_000);
  await expect(recordAccepted(pool, lost, accepted(newTraceId()), delivered)).rejects.toBeInstanceOf(
    LeaseLost,
  );
  expect(await spansOf(orgId)).toBe(0);
  await recordAccepted(pool, taken, accepted(newTraceId()), delivered);
  expect(await spansOf(orgId)).toBe(1);
});

it('commits the record only once Kafka acknowledged the spans, locking the lease until then', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, other] = holders();
  const held = await one!.acquire(orgId, 0);
  const acknowledged = Promise.withResolvers<void>();
  const recording = recordAccepted(pool, held, accepted(newTraceId()), () => acknowledged.promise);
  await expect.poll(() => leaseRowLocked(orgId)).toBe(true);
  expect(await spansOf(orgId)).toBe(0);
  // Another holder waits on the row meanwhile, and then finds the lease still held.
  const waiting = other!.acquire(orgId, 0);
  expect(await leaseRowLocked(orgId)).toBe(true);
  acknowledged.resolve();
  await recording;
  await expect(waiting).rejects.toBeInstanceOf(LeaseUnavailable);
  expect(await spansOf(orgId)).toBe(1);
  await one!.release(held);
});

it('records nothing, and keeps the lease, when Kafka refused the spans', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, other] = holders();
  const held = await one!.acquire(orgId, 0);
  const refusal = new Error('Kafka refused the spans');
  await expect(
    recordAccepted(pool, held, accepted(newTraceId()), () => Promise.reject(refusal)),
  ).rejects.toBe(refusal);
  expect(await spansOf(orgId)).toBe(0);
  const month = await pool.query('SELECT 1 FROM ingest_monthly WHERE org_id = $1', [orgId]);
  expect(month.rowCount).toBe(0);
  // Rolled back, the lease is still this holder's until it gives it back.
  await expect(other!.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  await one!.release(held);
  await other!.release(await other!.acquire(orgId, 0));
});

it("grows a known trace's row, and fails, recording nothing, for a trace said to be new that a row already holds", async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one] = holders();
  const held = await one!.acquire(orgId, 0);
  const traceId = newTraceId();
  await recordAccepted(pool, held, accepted(traceId), delivered);
  await recordAccepted(
    pool,
    held,
    { ...accepted(traceId), spanIds: ['00f067aa0ba902b8'], knownTraces: new Set([traceId]) },
    delivered,
  );
  expect(await spansOf(orgId)).toBe(2);
  // Only a writer outside the lease could have made the row; the group fails rather than merge.
  await expect(
    recordAccepted(pool, held, { ...accepted(traceId), spanIds: ['00f067aa0ba902b9'] }, delivered),
  ).rejects.toMatchObject({ code: '23505' });
  expect(await spansOf(orgId)).toBe(2);
  await one!.release(held);
});
