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
import { createClickHouse, sql } from '../platform/clickhouse.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { settledHours } from '../projections/span-facts-layout.ts';
import { models, tools } from './analytics-traces.ts';
import { machineLine, percentile } from './machine.ts';
import { type BenchOrg, loadedOrgs, otherOrgCount } from './million-spans.ts';
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
const otherOrgs = otherOrgCount(otherSpans);

// The platform as `npm start` runs it, on ports of its own, settling span facts every 10 s.
process.env.ORRERY_SPAN_FACTS_COMPACTION_EVERY_SECONDS ??= '10';
const platform = await startPlatformProcesses({ api: 18580, consumers: 18590 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const clickhouse = createClickHouse();

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
  console.log(machineLine());
  console.log(
    `analytics: ${targetSpans} spans in one org, ${otherSpans} across ${otherOrgs} others; traces of 10 spans, 300 sessions, 5 models, 6 days`,
  );
  const { orgs, loaded } = await loadedOrgs(
    platform.baseUrl,
    { pool, producer, clickhouse },
    { targetSpans, otherSpans, reload: values.reload },
    concurrency,
    (line) => console.log(line),
  );
  const target = orgs[0]!;
  console.log(`  the org: ${target.name}`);
  if (loaded) {
    console.log('reads right after the load (receipt hours not yet merged: analytics with FINAL):');
    for (const line of await timeReads(target)) console.log(line);
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
