import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { AdmissionLeases, LeaseLost, LeaseUnavailable } from '../../../stores/admission-lease.ts';
import { recordAccepted } from '../../../stores/ingest-ledger.ts';

// The org's admission lease between API processes (holders here stand for processes): one admits
// at a time; a recording renews the lease, or hands it to the first holder waiting in the org's
// line; a lease given back or expired passes to the first in line, or to whoever asks when nobody
// waits; a lease whose holder is gone (its presence ended) is free at once; a holder that lost its
// lease records nothing. A record is committed only once Kafka acknowledged the spans.

let pool: PgPool;
/** Every holder made here, each keeping its presence's connection until the end. */
const made: AdmissionLeases[] = [];
beforeAll(() => {
  pool = createPgPool(4);
});
afterAll(async () => {
  await Promise.all(made.map((holder) => holder.close()));
  await pool.end();
});

const ttlMs = 30_000;
const newTraceId = () => randomUUID().replace(/-/g, '');
const accepted = (traceId: string) => ({
  groupId: randomUUID(),
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

const holder = (ttl = ttlMs) => {
  const leases = new AdmissionLeases(pool, ttl, `test-${randomUUID()}`);
  made.push(leases);
  return leases;
};
const holders = () => [holder(), holder()];

/** Whether `holder` waits in the org's line for its lease. */
const inLine = async (orgId: string, holder: AdmissionLeases) =>
  (
    await pool.query('SELECT 1 FROM admission_lease_wanters WHERE org_id = $1 AND holder = $2', [
      orgId,
      holder.holder,
    ])
  ).rowCount === 1;

it('lets one holder at a time admit an org; a recording hands the lease to the one waiting, which the old holder cannot take back', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, other] = holders();
  const held = await one!.acquire(orgId, 0);
  const alone = await recordAccepted(pool, held, accepted(newTraceId()), delivered);
  expect(alone.handedOver).toBe(false);
  // The other holder finds the lease held; giving up, it leaves the line, so the lease stays.
  await expect(other!.acquire(orgId, 300)).rejects.toBeInstanceOf(LeaseUnavailable);
  expect(await inLine(orgId, other!)).toBe(false);
  expect((await recordAccepted(pool, held, accepted(newTraceId()), delivered)).handedOver).toBe(false);
  // Another org is not held up.
  await other!.release(await other!.acquire(`${orgId}-elsewhere`, 0));
  // Waiting, it is in the line, and the next recording hands it the lease.
  const waiting = other!.acquire(orgId, 5_000);
  await expect.poll(() => inLine(orgId, other!)).toBe(true);
  const handing = await recordAccepted(pool, held, accepted(newTraceId()), delivered);
  expect(handing.handedOver).toBe(true);
  // The old holder can neither take it back nor record under it.
  await expect(one!.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  await expect(recordAccepted(pool, held, accepted(newTraceId()), delivered)).rejects.toBeInstanceOf(
    LeaseLost,
  );
  const taken = await waiting;
  expect(await inLine(orgId, other!)).toBe(false);
  await recordAccepted(pool, taken, accepted(newTraceId()), delivered);
  expect(await spansOf(orgId)).toBe(4);
  // Given back with nobody waiting, the lease passes on at once.
  await other!.release(taken);
  await one!.release(await one!.acquire(orgId, 0));
});

it('hands a lease given back or expired to the first in line, in the order they asked, skipping one that stopped asking', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, second, third] = [...holders(), holder()];
  const wanter = (holder: string, askedAgo: string) =>
    pool.query(
      `INSERT INTO admission_lease_wanters (org_id, holder, since, asked_at)
       VALUES ($1, $2, now() - interval '1 minute', now() - $3::interval)`,
      [orgId, holder, askedAgo],
    );
  const held = await one!.acquire(orgId, 0);
  // A process that asked before all of them and then died: it is skipped.
  await wanter('test-dead', '5 seconds');
  const secondTakes = second!.acquire(orgId, 5_000);
  await expect.poll(() => inLine(orgId, second!)).toBe(true);
  const thirdTakes = third!.acquire(orgId, 5_000);
  await expect.poll(() => inLine(orgId, third!)).toBe(true);
  await one!.release(held);
  const secondHeld = await secondTakes;
  expect(await inLine(orgId, third!)).toBe(true);
  await second!.release(secondHeld);
  const thirdHeld = await thirdTakes;
  // An expired lease goes to the first in line (here one that asked a moment ago and is between
  // two asks), not to whoever asks.
  await wanter('test-waiting', '0 seconds');
  await pool.query('UPDATE admission_leases SET expires_at = now() WHERE org_id = $1', [orgId]);
  await expect(one!.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  await pool.query(`DELETE FROM admission_lease_wanters WHERE holder = 'test-waiting'`);
  const oneHeld = await one!.acquire(orgId, 0);
  await expect(recordAccepted(pool, thirdHeld, accepted(newTraceId()), delivered)).rejects.toBeInstanceOf(
    LeaseLost,
  );
  await recordAccepted(pool, oneHeld, accepted(newTraceId()), delivered);
  await one!.release(oneHeld);
  // Whoever took the lease left the line, and the dead one's row was removed by those asking.
  const line = await pool.query('SELECT holder FROM admission_lease_wanters WHERE org_id = $1', [orgId]);
  expect(line.rows).toEqual([]);
});

it('passes an expired lease on, and its old holder then records nothing', async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const stalled = holder(200);
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

it("frees a gone holder's lease at once, time left or not, and a live holder's not", async () => {
  const orgId = `org_lease_${randomUUID()}`;
  const [one, other] = holders();
  const held = await one!.acquire(orgId, 0);
  await expect(other!.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  // Its connection cut, as a process killed -9 leaves it: the presence's session ends with it.
  await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
    `${one!.holder}-presence`,
  ]);
  // Taken within 5 s though the gone holder's lease had 30 s left; the gone holder records nothing.
  const taken = await other!.acquire(orgId, 5_000);
  await expect(recordAccepted(pool, held, accepted(newTraceId()), delivered)).rejects.toBeInstanceOf(
    LeaseLost,
  );
  await recordAccepted(pool, taken, accepted(newTraceId()), delivered);
  expect(await spansOf(orgId)).toBe(1);
  // The holder that lost its presence shows it again when it next asks, and waits like any other.
  await expect(one!.acquire(orgId, 0)).rejects.toBeInstanceOf(LeaseUnavailable);
  await other!.release(taken);
  await one!.release(await one!.acquire(orgId, 0));
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
