import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pendingSpans } from '../../../api/otlp/ingest.ts';
import { EarlierGroupFailed, OrgAdmissions } from '../../../api/otlp/org-admissions.ts';
import { limits } from '../../../domain/tracing/limits.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { createEventProducer, type EventProducer, PublishFailed } from '../../../producers/producer.ts';
import { AdmissionLeases, LeaseUnavailable } from '../../../stores/admission-lease.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { llmSpan, spanId, traceId } from '../../harness/tracing.ts';

// One org's groups under way at once, against the real ledger and Kafka: a group is decided
// against the groups before it that are still being published, a failed one fails those decided
// against it, and the lease is kept between groups and given back after the last.

let pool: PgPool;
let kafka: EventProducer;
beforeAll(async () => {
  pool = createPgPool(4);
  kafka = await createEventProducer('orrery-test-org-admissions');
});
afterAll(async () => {
  await kafka.disconnect();
  await pool.end();
});

/**
 * The real producer, with the first publish held until the test lets it go (once a later group
 * has asked to publish: so that group was decided while the first was unpublished and
 * unrecorded). The held publish then goes on to Kafka, or fails as a broker that refused it.
 */
function holdingFirstPublish(outcome: 'published' | 'refused') {
  const laterAsked = Promise.withResolvers<void>();
  const letGo = Promise.withResolvers<void>();
  let sends = 0;
  const producer: EventProducer = {
    registry: kafka.registry,
    sendRaw: (topic, messages) => kafka.sendRaw(topic, messages),
    disconnect: () => kafka.disconnect(),
    reachable: (timeoutMs) => kafka.reachable(timeoutMs),
    async send(stream, records) {
      sends += 1;
      if (sends > 1) laterAsked.resolve();
      else {
        await letGo.promise;
        if (outcome === 'refused') throw new PublishFailed('the broker refused the batch (test)');
      }
      return kafka.send(stream, records);
    },
  };
  return { producer, laterAsked: laterAsked.promise, letGo: () => letGo.resolve() };
}

const ledgerOf = async (orgId: string) => {
  const traces = await pool.query<{ trace: string; spans: number }>(
    `SELECT replace(trace_id::text, '-', '') AS trace, cardinality(span_ids) AS spans
       FROM ingest_traces WHERE org_id = $1 ORDER BY trace`,
    [orgId],
  );
  const month = await pool.query<{ spans: string }>('SELECT spans FROM ingest_monthly WHERE org_id = $1', [
    orgId,
  ]);
  return {
    traces: Object.fromEntries(traces.rows.map((row) => [row.trace, row.spans])),
    monthSpans: Number(month.rows[0]?.spans ?? 0),
  };
};

const deps = (producer: EventProducer, holder = `test-${randomUUID()}`) => ({
  pool,
  producer,
  leases: new AdmissionLeases(pool, 30_000, holder),
  leaseWaitMs: 2_000,
  limits: { ...limits, spansPerTrace: 2, monthlySpans: 3 },
});

it('decides a group against an earlier one still being published: duplicates, full traces, the month', async () => {
  const orgId = `org_pipeline_${randomUUID()}`;
  const held = holdingFirstPublish('published');
  const admissions = new OrgAdmissions(deps(held.producer), orgId);
  const [first, second] = [traceId(), traceId()];
  const [a, b, c, d, e] = Array.from({ length: 5 }, () => spanId());
  const earlier = admissions.admit([
    pendingSpans(request([llmSpan({ traceId: first, spanId: a }), llmSpan({ traceId: first, spanId: b })])),
  ]);
  const later = admissions.admit([
    pendingSpans(
      request([
        llmSpan({ traceId: first, spanId: a }),
        llmSpan({ traceId: first, spanId: c }),
        llmSpan({ traceId: second, spanId: d }),
        llmSpan({ traceId: second, spanId: e }),
      ]),
    ),
  ]);
  await held.laterAsked;
  held.letGo();
  const [[earlierAdmission], [laterAdmission]] = await Promise.all([earlier, later]);
  expect(earlierAdmission).toMatchObject({ verdicts: ['accepted', 'accepted'] });
  // The earlier group's spans counted, though it was not yet recorded: a duplicate, a trace at
  // its two spans, and the month's third span the last one accepted.
  expect(laterAdmission).toMatchObject({
    verdicts: ['duplicate', 'trace_full', 'accepted', 'monthly_spans'],
    rejectedSpans: 2,
  });
  expect(await ledgerOf(orgId)).toEqual({ traces: { [first]: 2, [second]: 1 }, monthSpans: 3 });
});

it('fails the groups decided against one whose publish failed, and then admits afresh', async () => {
  const orgId = `org_pipeline_${randomUUID()}`;
  const held = holdingFirstPublish('refused');
  const admissions = new OrgAdmissions(deps(held.producer), orgId);
  const trace = traceId();
  const spans = () => [llmSpan({ traceId: trace, spanId: 'aaaaaaaaaaaaaaa1' })];
  const earlier = admissions.admit([pendingSpans(request(spans()))]);
  const later = admissions.admit([pendingSpans(request([...spans(), llmSpan({ traceId: trace })]))]);
  await held.laterAsked;
  held.letGo();
  await expect(earlier).rejects.toBeInstanceOf(PublishFailed);
  // Its span was a duplicate of the failed group's, which was never stored: it must not succeed.
  await expect(later).rejects.toBeInstanceOf(EarlierGroupFailed);
  expect(await ledgerOf(orgId)).toEqual({ traces: {}, monthSpans: 0 });
  const [retried] = await admissions.admit([pendingSpans(request(spans()))]);
  expect(retried).toMatchObject({ verdicts: ['accepted'] });
  expect(await ledgerOf(orgId)).toEqual({ traces: { [trace]: 1 }, monthSpans: 1 });
});

it('keeps the org lease while groups follow each other and gives it back after the last', async () => {
  const orgId = `org_pipeline_${randomUUID()}`;
  const held = holdingFirstPublish('published');
  const admissions = new OrgAdmissions(deps(held.producer), orgId);
  const otherProcess = new AdmissionLeases(pool, 30_000, `test-${randomUUID()}`);
  const groups = [1, 2, 3].map(() => admissions.admit([pendingSpans(request([llmSpan()]))]));
  // The first group is held in its publish, the later ones wait to be recorded after it.
  await held.laterAsked;
  await expect(otherProcess.acquire(orgId, 100)).rejects.toBeInstanceOf(LeaseUnavailable);
  held.letGo();
  const settled = await Promise.all(groups);
  expect(settled.flat().map((admission) => admission instanceof Error || admission.verdicts)).toEqual([
    ['accepted'],
    ['accepted'],
    ['accepted'],
  ]);
  // Given back by the last group's recording: another process takes it at once.
  await otherProcess.release(await otherProcess.acquire(orgId, 0));
});
