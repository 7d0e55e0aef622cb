import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { limits } from '../../../domain/tracing/limits.ts';
import { config } from '../../../platform/config.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { createEventProducer, type EventProducer } from '../../../producers/producer.ts';
import { loadReplicas, replicaLine } from '../../harness/admission-replicas.ts';

// Two API replicas serving one org under steady load (issue 47): the org's admission lease passes
// between them, so both get a share of the org's groups and neither waits for the lease as long
// as a group may (leaseWaitMs, after which its requests fail with 503), and the org's monthly
// limit holds across them (each group is decided against the ledger its predecessor left). Each replica here is an
// admission queue with its own pools and lease holder, as an API process has (api/app.ts).

let pool: PgPool;
let producer: EventProducer;
beforeAll(async () => {
  pool = createPgPool(2);
  producer = await createEventProducer('orrery-test-fairness');
});
afterAll(async () => {
  await producer.disconnect();
  await pool.end();
});

const spansInLedger = async (orgId: string) =>
  (
    await pool.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(span_ids)), 0)::int AS n FROM ingest_traces WHERE org_id = $1',
      [orgId],
    )
  ).rows[0]!.n;

it('lets two replicas under steady load for one org both admit, neither waiting out its lease wait', async () => {
  const orgId = `org_fairness_${randomUUID()}`;
  // As the API sets them (api/app.ts): a group waits for the lease as long as a caller for Kafka.
  const { callerMs } = config().kafka.timeouts;
  const spansPerRequest = 10;
  const replicas = await loadReplicas({
    producer,
    orgId,
    replicas: 2,
    exporters: 3,
    spansPerRequest,
    seconds: 4,
    leaseWaitMs: callerMs,
    leaseTtlMs: callerMs + 5_000,
  });
  const report = replicas.map(replicaLine).join('\n');
  const groups = replicas.reduce((sum, replica) => sum + replica.groups, 0);
  for (const replica of replicas) {
    expect(replica.failed, report).toBe(0);
    expect(replica.leaseWaits.at(-1) ?? 0, report).toBeLessThan(callerMs);
    // Half each would be even; a quarter is a share, where one replica starved gets next to none.
    expect(replica.groups, report).toBeGreaterThanOrEqual(groups / 4);
  }
  // One holder at a time: every span answered as accepted is in the ledger once.
  const answered = replicas.reduce((sum, replica) => sum + replica.answered, 0);
  expect(await spansInLedger(orgId)).toBe(answered * spansPerRequest);
});

it('holds the org to its monthly span limit across two replicas admitting at once', async () => {
  const orgId = `org_monthly_${randomUUID()}`;
  const { callerMs } = config().kafka.timeouts;
  const monthlySpans = 300;
  const replicas = await loadReplicas({
    producer,
    orgId,
    replicas: 2,
    exporters: 3,
    spansPerRequest: 10,
    seconds: 3,
    leaseWaitMs: callerMs,
    leaseTtlMs: callerMs + 5_000,
    limits: { ...limits, monthlySpans },
  });
  const report = replicas.map(replicaLine).join('\n');
  // Far more was offered than the month allows, by both replicas: exactly the limit was kept.
  for (const replica of replicas) expect(replica.failed, report).toBe(0);
  expect(replicas.reduce((sum, replica) => sum + replica.answered, 0) * 10, report).toBeGreaterThan(
    monthlySpans * 2,
  );
  expect(await spansInLedger(orgId)).toBe(monthlySpans);
});
