// Load generator for the OTLP endpoint (issue #3): realistic LLM traces, protobuf, gzip, batches
// of 512, sent by a few concurrent exporters for a fixed time. Prints spans/s accepted, request
// latency p50/p99, how long until spans are queryable in ClickHouse, and the consumers' lag.
//   npx tsx bench/ingest.ts [--seconds 20] [--concurrency 4] [--batch 512] [--orgs 1]
//     [--rate 20000] [--url http://127.0.0.1:8080]
// By default each exporter sends its next batch when the last is answered: the most the platform
// accepts. With --rate, batches are sent on a schedule of that many spans a second (issue 10's
// "at 20,000 spans/s"), so the time until spans are queryable is measured at that load rather than
// at saturation; a batch an exporter could not send on time is counted as late.
// An org keeps at most 1,000,000 spans a month (001, Limits): a run past that at one org is
// refused from then on, so a long run spreads its exporters over --orgs orgs, round robin.
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApiKey, createOrg, enableTracing } from '../api/admin/commands.ts';
import type { ConsumerGroupId } from '../consumers/groups.ts';
import { createClickHouse, hexId, idBytes, joinSql, sql } from '../platform/clickhouse.ts';
import { createKafka } from '../platform/kafka.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { topics } from '../schemas/events/topics.ts';
import { responseType, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { mergesBetween, mergesLine, readMergeCounters } from './clickhouse-merges.ts';
import { consumerLag } from './consumer-lag.ts';
import { ingestPhases, phasesLine } from './ingest-phases.ts';
import { llmRequest, llmSpans } from './llm-spans.ts';
import { machineLine, percentile } from './machine.ts';
import { startPlatformProcesses } from './platform-process.ts';
import { cpuBetween, cpuLine, readCpu } from './process-cpu.ts';
import { speedCheck, speedLine } from './speed-check.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
    batch: { type: 'string', default: '512' },
    orgs: { type: 'string', default: '1' },
    rate: { type: 'string' },
    // A platform already running (to profile it, say); by default the bench starts its own.
    url: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const batchSize = Number(values.batch);
const orgCount = Number(values.orgs);
if (!(Number.isInteger(orgCount) && orgCount >= 1 && orgCount <= concurrency))
  throw new Error('use --orgs N with 1 <= N <= --concurrency');
const rate = values.rate === undefined ? undefined : Number(values.rate);
if (rate !== undefined && !(Number.isInteger(rate) && rate > 0))
  throw new Error('use --rate N, N spans a second (a whole number above 0)');
/** With --rate, the time from one batch's scheduled send to the next's. */
const sendIntervalMs = rate === undefined ? 0 : (batchSize / rate) * 1000;
/** A batch sent later than this after its scheduled time counts as late. */
const lateAfterMs = 100;
/** How long the sampler waits for a trace to be queryable before it reports it as missing. */
const visibilityTimeoutMs = 30_000;
const spansGroupId = 'orrery-spans-clickhouse' satisfies ConsumerGroupId;
const inList = (values: readonly string[]) =>
  joinSql(
    values.map((value) => sql`${value}`),
    ', ',
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A batch kept whole: the trace sent last in it, and when its answer came. */
interface Sample {
  orgId: string;
  traceId: string;
  at: number;
}

function batches(count: number): { body: Buffer; lastTraceId: string }[] {
  const made: { body: Buffer; lastTraceId: string }[] = [];
  for (let index = 0; index < count; index += 1) {
    const spans = llmSpans(batchSize);
    made.push({
      body: gzipSync(toProtobuf(llmRequest(spans))),
      lastTraceId: spans[spans.length - 1]!.traceId,
    });
  }
  return made;
}

const platform = values.url
  ? { baseUrl: values.url, stop: async () => undefined }
  : await startPlatformProcesses({ api: 18480, consumers: 18490 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const clickhouse = createClickHouse();
const admin = createKafka('orrery-bench-lag').admin();
await admin.connect();
try {
  const orgs = await Promise.all(
    Array.from({ length: orgCount }, async (_, index) => {
      const org = await createOrg({ pool, producer }, `Bench Org ${index + 1}`);
      await enableTracing({ pool, producer }, org.orgId);
      const { key } = await createApiKey({ pool, producer }, org.orgId, ['traces:write']);
      return { orgId: org.orgId, key };
    }),
  );

  // Enough distinct batches for the run at ~30,000 spans/s (or --rate), made before the clock starts.
  const prepared = batches(Math.ceil((seconds * Math.max(30_000, rate ?? 0)) / batchSize));
  process.stderr.write(
    `prepared ${prepared.length} batches of ${batchSize} spans (${(prepared[0]!.body.length / 1024).toFixed(0)} KiB gzip each)\n`,
  );

  const phasesBefore = await ingestPhases(platform.baseUrl);
  const latencies: number[] = [];
  const visibility: number[] = [];
  let accepted = 0;
  let rejected = 0;
  let failures = 0;
  let missing = 0;
  let next = 0;
  /** With --rate: batches sent more than lateAfterMs after their time, and the latest by how much. */
  let late = 0;
  let latestMs = 0;
  let lagPeak = 0;
  const speedBefore = speedCheck();
  const cpuBefore = readCpu();
  const mergesBefore = await readMergeCounters(clickhouse);
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  /** Batches kept whole (nothing refused): the sampler asks ClickHouse for their last trace. */
  const acked: Sample[] = [];

  async function sender(exporter: number) {
    const { orgId, key } = orgs[exporter % orgs.length]!;
    while (performance.now() < stopAt && next < prepared.length) {
      const index = next++;
      const batch = prepared[index]!;
      if (rate !== undefined) {
        const dueAt = started + index * sendIntervalMs;
        if (dueAt >= stopAt) break;
        if (dueAt > performance.now()) await sleep(dueAt - performance.now());
        const lateByMs = performance.now() - dueAt;
        latestMs = Math.max(latestMs, lateByMs);
        if (lateByMs > lateAfterMs) late += 1;
      }
      const sentAt = performance.now();
      const response = await fetch(`${platform.baseUrl}/api/otlp/v1/traces`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-protobuf',
          'content-encoding': 'gzip',
          authorization: `Bearer ${key}`,
        },
        body: batch.body,
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      latencies.push(performance.now() - sentAt);
      if (response.status !== 200) {
        failures += 1;
        continue;
      }
      const answer = responseType.toObject(responseType.decode(bytes), { longs: Number }) as {
        partialSuccess?: { rejectedSpans?: number };
      };
      const refused = answer.partialSuccess?.rejectedSpans ?? 0;
      rejected += refused;
      accepted += batchSize - refused;
      if (refused === 0) acked.push({ orgId, traceId: batch.lastTraceId, at: performance.now() });
    }
  }

  /** Batches whose last trace ClickHouse has not shown yet. */
  const watching: Sample[] = [];

  /**
   * At most every 250 ms the newest batch kept whole is watched until ClickHouse has its last
   * trace, all watched batches asked for in one query every 100 ms or so: a minute gives about two
   * hundred samples, and a p99 that is not just the maximum, for a few small queries a second.
   */
  async function sampler() {
    let watched: Sample | undefined;
    let pickedAt = Number.NEGATIVE_INFINITY;
    while (performance.now() < stopAt || watching.length > 0) {
      const newest = acked.at(-1);
      if (performance.now() < stopAt && newest !== watched && performance.now() - pickedAt >= 250) {
        watched = newest;
        pickedAt = performance.now();
        if (newest !== undefined) watching.push(newest);
      }
      if (watching.length > 0) {
        const queryable = await queryableTraces(watching);
        const at = performance.now();
        for (const sample of [...watching]) {
          const seen = queryable.has(sample.traceId);
          if (seen) visibility.push(at - sample.at);
          else if (at - sample.at > visibilityTimeoutMs) missing += 1;
          else continue;
          watching.splice(watching.indexOf(sample), 1);
        }
      }
      await sleep(100);
    }
  }

  async function queryableTraces(samples: readonly Sample[]): Promise<Set<string>> {
    const orgIds = inList(orgs.map((org) => org.orgId));
    const traceIds = joinSql(
      samples.map((sample) => idBytes(sample.traceId)),
      ', ',
    );
    const result = await clickhouse.query({
      query: sql`SELECT DISTINCT ${hexId('trace_id')} AS trace_hex FROM spans
          WHERE org_id IN (${orgIds}) AND trace_id IN (${traceIds})`.text,
      format: 'JSONEachRow',
    });
    return new Set((await result.json<{ trace_hex: string }>()).map((row) => row.trace_hex));
  }

  /** The spans projection's lag, read each second while the load runs. */
  async function lagWatcher() {
    while (performance.now() < stopAt) {
      lagPeak = Math.max(lagPeak, await consumerLag(admin, spansGroupId, topics.spans.name));
      await sleep(1000);
    }
  }

  await Promise.all([
    ...Array.from({ length: concurrency }, (_, exporter) => sender(exporter)),
    sampler(),
    lagWatcher(),
  ]);
  const cpuSpent = cpuBetween(cpuBefore, readCpu());
  const merges = mergesBetween(mergesBefore, await readMergeCounters(clickhouse));
  const lagAfter = await consumerLag(admin, spansGroupId, topics.spans.name);
  const phasesAfter = await ingestPhases(platform.baseUrl);
  const elapsed = (performance.now() - started) / 1000;
  const sendSeconds = Math.min(elapsed, seconds);
  latencies.sort((a, b) => a - b);
  visibility.sort((a, b) => a - b);
  console.log(machineLine());
  console.log(speedLine(speedBefore, speedCheck()));
  console.log(
    `ingest: ${seconds} s, ${concurrency} concurrent exporters to ${orgCount} org(s), batches of ${batchSize} spans (protobuf, gzip)${rate === undefined ? ', each sent when the last is answered' : `, sent on a schedule of ${rate} spans/s`}`,
  );
  if (rate !== undefined)
    console.log(
      `  schedule: ${late} batches sent over ${lateAfterMs} ms late (all exporters busy), the latest ${latestMs.toFixed(0)} ms late`,
    );
  console.log(`  requests: ${latencies.length} (${failures} failed)`);
  console.log(
    `  spans accepted: ${accepted} (${rejected} refused) = ${(accepted / sendSeconds).toFixed(0)} spans/s`,
  );
  console.log(
    `  request latency: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
  console.log(
    `  queryable in ClickHouse after the answer: p50 ${percentile(visibility, 50).toFixed(0)} ms, p99 ${percentile(visibility, 99).toFixed(0)} ms, max ${(visibility.at(-1) ?? Number.NaN).toFixed(0)} ms (${visibility.length} samples${missing > 0 ? `; ${missing} NOT queryable within ${visibilityTimeoutMs / 1000} s` : ''})`,
  );
  console.log(
    `  ${spansGroupId} lag (messages of ${topics.spans.name} not yet committed): highest while sending ${lagPeak}, once every sample was queryable ${lagAfter}`,
  );
  console.log(`  ${phasesLine(phasesBefore, phasesAfter)}`);
  console.log(`  until every sample was queryable, ${cpuLine(cpuSpent, accepted, 'spans', elapsed)}`);
  console.log(`  meanwhile ${mergesLine(merges)}`);
} finally {
  await platform.stop();
  await producer.disconnect();
  await pool.end();
  await clickhouse.close();
  await admin.disconnect();
}
