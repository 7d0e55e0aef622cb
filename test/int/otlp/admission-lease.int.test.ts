import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { AdmissionLeases, LeaseLost, LeaseUnavailable } from '../../../stores/admission-lease.ts';
import { recordAccepted } from '../../../stores/ingest-ledger.ts';

// The org's admission lease between API processes (two holders here stand for two processes):
// one admits at a time, a lease given back or expired passes on, and a holder that lost its
// lease records nothing. A record is committed only once Kafka acknowledged the spans.

let pool: PgPool;
beforeAll(() => {
  pool = createPgPool(4);
});
afterAll(() => pool.end());

const accepted = (traceId: string) => ({
  month: '2026-11-01',
  now: new Date(),
  traceIds: [traceId],
  spanIds: ['00f067aa0ba902b7'],
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

it('lets one holder at a time admit an org, and passes the lease on when it is given back', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const one = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const other = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const held = await one.acquire(orgId, 0);
  await expect(other.acquire(orgId, 300)).rejects.toBeInstanceOf(LeaseUnavailable);
  // Another org is not held up.
  await other.release(await other.acquire(`${orgId}-elsewhere`, 0));
  // Recording gives the lease back: the other holder then takes it at once.
  await recordAccepted(pool, held, accepted(randomUUID().replace(/-/g, '')), delivered);
  expect(await spansOf(orgId)).toBe(1);
  await other.release(await other.acquire(orgId, 0));
});

it('passes an expired lease on, and its old holder then records nothing', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const stalled = new AdmissionLeases(pool, 200, `test-${randomUUID()}`);
  const other = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const lost = await stalled.acquire(orgId, 0);
  // The other holder waits until the stalled one's lease has expired, then takes it.
  const taken = await other.acquire(orgId, 5_000);
  await expect(
    recordAccepted(pool, lost, accepted(randomUUID().replace(/-/g, '')), delivered),
  ).rejects.toBeInstanceOf(LeaseLost);
  expect(await spansOf(orgId)).toBe(0);
  await recordAccepted(pool, taken, accepted(randomUUID().replace(/-/g, '')), delivered);
  expect(await spansOf(orgId)).toBe(1);
});

it('commits the record only once Kafka acknowledged the spans, holding the lease until then', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const one = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const other = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const held = await one.acquire(orgId, 0);
  let acknowledge = () => {};
  const delivery = new Promise<void>((resolve) => {
    acknowledge = resolve;
  });
  const recording = recordAccepted(pool, held, accepted(randomUUID().replace(/-/g, '')), () => delivery);
  // The statement has run once it locks the lease's row (giving it back, not yet committed).
  const leaseRowLocked = () =>
    pool.query('SELECT 1 FROM admission_leases WHERE org_id = $1 FOR UPDATE NOWAIT', [orgId]).then(
      () => false,
      (error: { code?: string }) => error.code === '55P03',
    );
  await expect.poll(leaseRowLocked).toBe(true);
  expect(await spansOf(orgId)).toBe(0);
  // Another holder waits on the row meanwhile, and takes the lease once the record commits.
  const waiting = other.acquire(orgId, 0);
  expect(await leaseRowLocked()).toBe(true);
  acknowledge();
  await recording;
  expect(held.givenBack).toBe(true);
  expect(await spansOf(orgId)).toBe(1);
  await other.release(await waiting);
});

it('records nothing and keeps the lease when Kafka refused the spans', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const one = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const other = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const held = await one.acquire(orgId, 0);
  const refusal = new Error('Kafka refused the spans');
  await expect(
    recordAccepted(pool, held, accepted(randomUUID().replace(/-/g, '')), () => Promise.reject(refusal)),
  ).rejects.toBe(refusal);
  expect(held.givenBack).toBe(false);
  expect(await spansOf(orgId)).toBe(0);
  const month = await pool.query('SELECT 1 FROM ingest_monthly WHERE org_id = $1', [orgId]);
  expect(month.rowCount).toBe(0);
  // Rolled back, the lease is still this holder's until it gives it back (AdmissionLeases.hold).
  await expect(other.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  await one.release(held);
  await other.release(await other.acquire(orgId, 0));
});
