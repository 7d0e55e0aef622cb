// A session and a user read at a million spans (issue 50, item 2): the org at the monthly limit
// (1,000,000 spans) among 10,000,000 across orgs, loaded as bench/analytics.ts loads it (the same
// orgs: a run of either bench after the other sends nothing), then GET /api/sessions/:sessionId
// (its first page of 20 turns, a page of 50, and the page after the first) and
// GET /api/users/:userId, each timed through the HTTP API: p50 and max, against the trace list's
// target (p50 at most 150 ms). The traces are support-agent turns of 10 spans in 300 sessions
// (about 330 traces each at a million spans) of 5,000 users (about 20 each), their messages on
// five generations of each.
//   npx tsx bench/sessions-users.ts [--spans 1000000] [--other-orgs-spans 9000000] [--reads 30] [--reload]
import './quiet-logs.ts';
import { parseArgs } from 'node:util';
import { createClickHouse } from '../platform/clickhouse.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { sessions } from './analytics-traces.ts';
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

const platform = await startPlatformProcesses({ api: 18620, consumers: 18630 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const clickhouse = createClickHouse();

interface SessionBody {
  data: { trace_count: number; traces: unknown[] };
  next_cursor: string | null;
}
interface UserBody {
  data: { trace_count: number; session_count: number; sessions: unknown[] };
}

async function timeReads(target: BenchOrg): Promise<string[]> {
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${target.key}` },
    });
    const body = (await response.json()) as T;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  // Users that exist, from the newest traces; every session of the load exists at this size.
  const listed = await get<{ data: { user_id: string | null }[] }>('/api/traces?limit=100');
  const users = [...new Set(listed.data.flatMap((trace) => (trace.user_id ? [trace.user_id] : [])))];
  const session = (index: number) => `/api/sessions/session-${(index * 7) % sessions}`;
  const secondPages = new Map<number, string>();
  for (let index = 0; index < reads; index += 1) {
    const first = await get<SessionBody>(session(index));
    if (first.next_cursor) secondPages.set(index, `${session(index)}?cursor=${first.next_cursor}`);
  }
  const cases: [string, (index: number) => string, (body: never) => string][] = [
    [
      'session, first 20 turns',
      session,
      (body: SessionBody) => `${body.data.traces.length} of ${body.data.trace_count} traces`,
    ],
    [
      'session, 50 turns',
      (index) => `${session(index)}?limit=50`,
      (body: SessionBody) => `${body.data.traces.length} of ${body.data.trace_count} traces`,
    ],
    [
      'session, the page after the first',
      (index) => secondPages.get(index) ?? session(index),
      (body: SessionBody) => `${body.data.traces.length} of ${body.data.trace_count} traces`,
    ],
    [
      'user',
      (index) => `/api/users/${encodeURIComponent(users[index % users.length]!)}`,
      (body: UserBody) =>
        `${body.data.trace_count} traces, ${body.data.session_count} sessions, ${body.data.sessions.length} listed`,
    ],
  ];
  const lines: string[] = [];
  for (const [name, path, sizeOf] of cases) {
    const times: number[] = [];
    let size = '';
    for (let index = 0; index < reads; index += 1) {
      const started = performance.now();
      const body = await get<never>(path(index));
      times.push(performance.now() - started);
      size = sizeOf(body);
    }
    times.sort((a, b) => a - b);
    lines.push(
      `  ${name.padEnd(34)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms, max ${times.at(-1)!.toFixed(1).padStart(6)} ms (${size})`,
    );
  }
  return lines;
}

try {
  console.log(machineLine());
  console.log(
    `sessions and users: ${targetSpans} spans in one org, ${otherSpans} across ${otherOrgCount(otherSpans)} others; traces of 10 spans, ${sessions} sessions, 5,000 users, 6 days`,
  );
  const { orgs } = await loadedOrgs(
    platform.baseUrl,
    { pool, producer, clickhouse },
    { targetSpans, otherSpans, reload: values.reload },
    concurrency,
    (line) => console.log(line),
  );
  const target = orgs[0]!;
  console.log(`  the org: ${target.name}`);
  console.log(`reads (${reads} of each, one at a time; target p50 at most 150 ms):`);
  for (const line of await timeReads(target)) console.log(line);
} finally {
  await platform.stop();
  await producer.disconnect();
  await Promise.all([pool.end(), clickhouse.close()]);
}
