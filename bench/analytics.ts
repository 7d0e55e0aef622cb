// Reads at a million spans (issue 10, item 4): one org holding the monthly limit of spans (1,000,000)
// among 10,000,000 across orgs, loaded through the OTLP endpoint, then the trace list (no filter,
// by model, by session, by name), one trace and the 7-day analytics, each timed through the HTTP
// API: p50 and max.
//   npx tsx bench/analytics.ts [--spans 1000000] [--other-orgs-spans 9000000] [--reads 30] [--reload]
//
// The data stays: a later run with the same sizes finds its orgs by name and loads only what is
// missing (nothing, once loaded); --reload loads a new set of orgs. Loading 10M spans takes about
// 20 minutes on two cores. The traces start in the 6 days before their load, so a reuse more than a
// day later finds some outside the 7-day analytics: reload then.
import './quiet-logs.ts';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApiKey, createOrg, enableTracing } from '../api/admin/commands.ts';
import type { OtlpSpan } from '../domain/tracing/otlp.ts';
import { createClickHouse, joinSql, sql } from '../platform/clickhouse.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { settledHours } from '../projections/span-facts-layout.ts';
import { request, responseType, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { benchResource, models, supportSpans, tools } from './analytics-traces.ts';
import { machineLine, percentile } from './machine.ts';
import { startPlatformProcesses } from './platform-process.ts';

const { values } = parseArgs({
  options: {
    spans: { type: 'string', default: '1000000' },
    'other-orgs-spans': { type: 'string', default: '9000000' },
    reads: { type: 'string', default: '30' },
    reload: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '4' },
  },
});
const targetSpans = Number(values.spans);
const otherSpans = Number(values['other-orgs-spans']);
const reads = Number(values.reads);
const concurrency = Number(values.concurrency);
const batchSize = 512;
/** The spec's monthly limit per org (001, Limits); the other orgs stay under it. */
const monthlyLimit = 1_000_000;
const otherOrgs = Math.max(10, Math.ceil(otherSpans / (monthlyLimit * 0.95)));

// The platform as `npm start` runs it, on ports of its own, settling span facts every 10 s.
process.env.ORRERY_SPAN_FACTS_COMPACTION_EVERY_SECONDS ??= '10';
const platform = await startPlatformProcesses({ api: 18580, consumers: 18590 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const clickhouse = createClickHouse();
const admin = { pool, producer };

interface BenchOrg {
  orgId: string;
  name: string;
  spans: number;
  key: string;
}

/** The orgs of this size's latest set (or a new set), each with a fresh key. */
async function benchOrgs(): Promise<BenchOrg[]> {
  const prefix = `analytics-bench ${targetSpans}+${otherSpans}`;
  const existing = await pool.query<{ org_id: string; name: string }>(
    'SELECT org_id, name FROM orgs WHERE name LIKE $1 ORDER BY name',
    [`${prefix} set %`],
  );
  const sets = existing.rows.map((row) => Number(/ set (\d+) /.exec(row.name)?.[1] ?? 0));
  const latest = Math.max(0, ...sets);
  const set = values.reload || latest === 0 ? latest + 1 : latest;
  const wanted = [
    { name: `${prefix} set ${set} target`, spans: targetSpans },
    ...Array.from({ length: otherOrgs }, (_, index) => ({
      name: `${prefix} set ${set} other ${String(index + 1).padStart(2, '0')}`,
      spans: Math.floor(otherSpans / otherOrgs) + (index < otherSpans % otherOrgs ? 1 : 0),
    })),
  ];
  const orgs: BenchOrg[] = [];
  for (const { name, spans } of wanted) {
    let orgId = existing.rows.find((row) => row.name === name)?.org_id;
    if (!orgId) {
      orgId = (await createOrg(admin, name)).orgId;
      await enableTracing(admin, orgId);
    }
    const { key } = await createApiKey(admin, orgId, ['traces:write'], 'analytics bench');
    orgs.push({ orgId, name, spans, key });
  }
  // The API follows the org stream: give it a moment to know the new keys.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return orgs;
}

async function storedSpans(orgIds: string[]): Promise<Map<string, number>> {
  const ids = joinSql(
    orgIds.map((orgId) => sql`${orgId}`),
    ', ',
  );
  const result = await clickhouse.query({
    query: sql`SELECT org_id, count() AS n FROM spans WHERE org_id IN (${ids}) GROUP BY org_id`.text,
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ org_id: string; n: string }>();
  return new Map(rows.map((row) => [row.org_id, Number(row.n)]));
}

interface Load {
  accepted: number;
  refused: number;
  requests: number;
  failed: number;
  seconds: number;
}

/** Sends each org's missing spans, batches of 512 (protobuf, gzip), the orgs taking turns. */
async function load(orgs: BenchOrg[], missing: Map<string, number>): Promise<Load> {
  const now = Date.now();
  const queues = orgs
    .filter((org) => (missing.get(org.orgId) ?? 0) > 0)
    .map((org) => ({ org, spans: supportSpans(missing.get(org.orgId)!, now) }));
  const totals = { accepted: 0, refused: 0, requests: 0, failed: 0 };
  const total = [...missing.values()].reduce((sum, n) => sum + Math.max(0, n), 0);
  let turn = 0;
  function nextBatch(): { org: BenchOrg; body: Buffer; count: number } | undefined {
    while (queues.length > 0) {
      const index = turn++ % queues.length;
      const queue = queues[index]!;
      const spans: OtlpSpan[] = [];
      // next() by hand: leaving a for…of would close the generator.
      for (let next = queue.spans.next(); !next.done; next = queue.spans.next()) {
        spans.push(next.value);
        if (spans.length === batchSize) break;
      }
      if (spans.length < batchSize) queues.splice(index, 1);
      if (spans.length === 0) continue;
      const body = request(spans);
      body.resourceSpans[0]!.resource.attributes = benchResource;
      return { org: queue.org, body: gzipSync(toProtobuf(body)), count: spans.length };
    }
    return undefined;
  }
  const started = performance.now();
  let lastReport = started;
  async function sender() {
    for (let batch = nextBatch(); batch; batch = nextBatch()) {
      for (let attempt = 0; ; attempt += 1) {
        const response = await fetch(`${platform.baseUrl}/api/otlp/v1/traces`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-protobuf',
            'content-encoding': 'gzip',
            authorization: `Bearer ${batch.org.key}`,
          },
          body: batch.body,
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        totals.requests += 1;
        if (response.status === 503 && attempt < 5) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (response.status !== 200) {
          totals.failed += 1;
          break;
        }
        const answer = responseType.toObject(responseType.decode(bytes), { longs: Number }) as {
          partialSuccess?: { rejectedSpans?: number };
        };
        const refused = answer.partialSuccess?.rejectedSpans ?? 0;
        totals.refused += refused;
        totals.accepted += batch.count - refused;
        break;
      }
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        const seconds = (lastReport - started) / 1000;
        process.stderr.write(
          `loading: ${totals.accepted + totals.refused} of ${total} spans sent in ${seconds.toFixed(0)} s (${((totals.accepted + totals.refused) / seconds).toFixed(0)}/s)\n`,
        );
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, sender));
  return { ...totals, seconds: (performance.now() - started) / 1000 };
}

/** Waits until ClickHouse holds `expected` spans of each org. */
async function untilStored(orgs: BenchOrg[], expected: Map<string, number>, timeoutMs: number) {
  const started = performance.now();
  for (;;) {
    const stored = await storedSpans(orgs.map((org) => org.orgId));
    if (orgs.every((org) => (stored.get(org.orgId) ?? 0) >= (expected.get(org.orgId) ?? 0)))
      return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs) throw new Error('ClickHouse did not get every span in time');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** Waits until every receipt hour holding the org's span facts is one merged part; seconds waited. */
async function untilSettled(orgId: string, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  const result = await clickhouse.query({
    query:
      sql`SELECT DISTINCT toYYYYMMDD(trace_first_received_at) * 100 + toHour(trace_first_received_at) AS hour
      FROM span_facts WHERE org_id = ${orgId}`.text,
    format: 'JSONEachRow',
  });
  const hours = new Set((await result.json<{ hour: string }>()).map((row) => String(row.hour)));
  while (performance.now() - started < timeoutMs) {
    const parts = await clickhouse.query({
      query: `SELECT partition, name, level FROM system.parts
        WHERE database = currentDatabase() AND table = 'span_facts' AND active`,
      format: 'JSONEachRow',
    });
    const rows = await parts.json<{ partition: string; name: string; level: number }>();
    const { settled } = settledHours(rows.map((row) => ({ ...row, level: Number(row.level) })));
    if ([...hours].every((hour) => settled.has(hour))) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return undefined;
}

async function timeReads(target: BenchOrg): Promise<string[]> {
  const get = async (path: string) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${target.key}` },
    });
    const body = (await response.json()) as { data: unknown[] | { span_count: number } };
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const page = (await get('/api/traces')) as { data: { trace_id: string }[] };
  const traceIds = page.data.map((item) => item.trace_id);
  const cases: [string, (index: number) => string][] = [
    ['trace list, no filter', () => '/api/traces'],
    [`trace list, model=${models[2]}`, () => `/api/traces?model=${models[2]}`],
    ['trace list, session_id=session-17', () => '/api/traces?session_id=session-17'],
    [`trace list, name=${tools[0]}`, () => `/api/traces?name=${tools[0]}`],
    ['one trace', (index) => `/api/traces/${traceIds[index % traceIds.length]}`],
    ['usage, 7 days', () => '/api/analytics/usage'],
    ['latency, 7 days', () => '/api/analytics/latency'],
    ['errors, 7 days', () => '/api/analytics/errors'],
  ];
  const lines: string[] = [];
  for (const [name, path] of cases) {
    const times: number[] = [];
    let size = 0;
    for (let index = 0; index < reads; index += 1) {
      const started = performance.now();
      const body = await get(path(index));
      times.push(performance.now() - started);
      size = Array.isArray(body.data) ? body.data.length : body.data.span_count;
    }
    times.sort((a, b) => a - b);
    lines.push(
      `  ${name.padEnd(34)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms, max ${times.at(-1)!.toFixed(1).padStart(6)} ms (${size} ${name === 'one trace' ? 'spans' : 'rows'})`,
    );
  }
  return lines;
}

try {
  const orgs = await benchOrgs();
  const target = orgs[0]!;
  const expected = new Map(orgs.map((org) => [org.orgId, org.spans]));
  const stored = await storedSpans(orgs.map((org) => org.orgId));
  const missing = new Map(orgs.map((org) => [org.orgId, org.spans - (stored.get(org.orgId) ?? 0)]));
  const toLoad = [...missing.values()].reduce((sum, n) => sum + Math.max(0, n), 0);
  console.log(machineLine());
  console.log(
    `analytics: ${targetSpans} spans in one org (${target.name}), ${otherSpans} across ${otherOrgs} others; traces of 10 spans, 300 sessions, 5 models, 6 days`,
  );
  if (toLoad > 0) {
    const loaded = await load(orgs, missing);
    console.log(
      `  loaded through POST /api/otlp/v1/traces: ${loaded.accepted} spans accepted, ${loaded.refused} refused, ${loaded.failed} of ${loaded.requests} requests failed, in ${loaded.seconds.toFixed(0)} s (${(loaded.accepted / loaded.seconds).toFixed(0)} spans/s)`,
    );
    const waited = await untilStored(orgs, expected, 60 * 60_000);
    console.log(`  in ClickHouse ${waited.toFixed(0)} s after the last answer`);
    console.log('reads right after the load (receipt hours not yet merged: analytics with FINAL):');
    for (const line of await timeReads(target)) console.log(line);
  } else {
    console.log('  already loaded (same org names): nothing sent');
  }
  const settled = await untilSettled(target.orgId, 15 * 60_000);
  console.log(
    settled === undefined
      ? 'reads (the receipt hours did not settle in 15 min: analytics partly with FINAL):'
      : `reads with the receipt hours settled (waited ${settled.toFixed(0)} s):`,
  );
  for (const line of await timeReads(target)) console.log(line);
} finally {
  await platform.stop();
  await producer.disconnect();
  await Promise.all([pool.end(), clickhouse.close()]);
}
