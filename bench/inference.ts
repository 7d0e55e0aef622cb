import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { hashApiKey } from '../api/auth/plugin.ts';
import type { OrgEvent } from '../domain/orgs/events.ts';
import { platformNodeOptions } from '../infra/node-options.ts';
import { publishOrgEvents } from '../producers/org.ts';
import { createEventProducer } from '../producers/producer.ts';
import { refusedBaseUrl, startModelServer } from '../test/harness/model-server.ts';

// The title endpoint under a fixed offered rate (open loop): requests per second, and the time
// the service adds over the model's own (response time − latency_ms), p50 and p99. It starts
// what it needs itself: a stand-in model that answers at once, an org with a key and credit on
// the running stack's org stream, and the API as a child process (api/main.ts). Usage events
// go to Kafka as in production, acknowledged before each answer.
//   npx tsx bench/inference.ts [--rate 500] [--duration 20]

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '500' }, duration: { type: 'string', default: '20' } },
});
const rate = Number(values.rate);
const durationS = Number(values.duration);
const total = Math.round(rate * durationS);
const maxInFlight = 2_000;

const model = await startModelServer(() => ({
  line: 'Password reset help',
  usage: { input: 40, output: 4 },
}));
const port = Number(new URL(await refusedBaseUrl()).port);
const models = [{ name: 'bench', writes: ['titles', 'previews'], baseUrl: model.baseUrl, timeoutMs: 5000 }];

// An org with a key and credit, published on the org stream the API follows.
const producer = await createEventProducer('orrery-bench');
const orgId = `org_bench_${randomBytes(6).toString('hex')}`;
const key = `orr_${randomBytes(24).toString('base64url')}`;
const base = { orgId, occurredAt: new Date() };
const setup: OrgEvent[] = [
  { ...base, eventId: randomUUID(), type: 'OrgCreated', name: 'Bench' },
  {
    ...base,
    eventId: randomUUID(),
    type: 'ApiKeyCreated',
    keyId: `key_${orgId}`,
    name: 'bench',
    keyHash: hashApiKey(key),
    keyPrefix: key.slice(0, 10),
    scopes: ['inference:invoke'],
  },
  {
    ...base,
    eventId: randomUUID(),
    type: 'CreditGranted',
    grantId: randomUUID(),
    amountCents: 1_000_000,
    reason: 'bench',
  },
];
await publishOrgEvents(producer, setup);
await producer.disconnect();

const api: ChildProcess = spawn(
  process.execPath,
  [
    ...platformNodeOptions,
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    '--import',
    'tsx',
    'api/main.ts',
  ],
  {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ORRERY_API_PORT: String(port),
      ORRERY_MODELS: JSON.stringify(models),
      ORRERY_LOG_LEVEL: 'warn',
      ORRERY_SERVICE: 'bench-api',
    },
  },
);

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const body = JSON.stringify({
  messages: [
    { role: 'user', content: 'How do I reset my password?' },
    { role: 'assistant', content: 'Open Settings, then Security.' },
  ],
});

interface Outcome {
  status: number;
  responseMs: number;
  latencyMs: number;
}

function post(): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/inference/bench/v1/titles',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const responseMs = performance.now() - started;
          let latencyMs = Number.NaN;
          if (res.statusCode === 200) latencyMs = JSON.parse(Buffer.concat(chunks).toString()).latency_ms;
          resolve({ status: res.statusCode ?? 0, responseMs, latencyMs });
        });
      },
    );
    req.on('error', () =>
      resolve({ status: 0, responseMs: performance.now() - started, latencyMs: Number.NaN }),
    );
    req.end(body);
  });
}

async function waitForApi(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await post()).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the API did not answer 200 within 60 s');
}

/** Sends `count` requests at `perSecond`, on schedule whatever the answers' pace (open loop). */
async function offer(
  count: number,
  perSecond: number,
): Promise<{ outcomes: Outcome[]; seconds: number; dropped: number }> {
  const outcomes: Outcome[] = [];
  const pending: Promise<void>[] = [];
  let sent = 0;
  let inFlight = 0;
  let dropped = 0;
  const started = performance.now();
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    for (; sent < due; sent += 1) {
      if (inFlight >= maxInFlight) {
        dropped += 1;
        continue;
      }
      inFlight += 1;
      pending.push(
        post().then((outcome) => {
          inFlight -= 1;
          outcomes.push(outcome);
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const deadline = new Promise((resolve) => setTimeout(resolve, 15_000));
  await Promise.race([Promise.all(pending), deadline]);
  return { outcomes, seconds: (performance.now() - started) / 1000, dropped };
}

/** CPU time (user + system) of a process so far, in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at USER_HZ = 100
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (value: number) => `${value.toFixed(2)} ms`;

try {
  await waitForApi();
  await offer(Math.min(1000, total), Math.min(rate, 200)); // warm-up: JIT, keep-alive sockets, producer
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const apiCpuBefore = cpuMs(api.pid!);
  const { outcomes, seconds, dropped } = await offer(total, rate);
  const apiCpu = cpuMs(api.pid!) - apiCpuBefore;
  loop.disable();
  const ok = outcomes.filter((o) => o.status === 200);
  const statuses = new Map<number, number>();
  for (const o of outcomes) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
  const overhead = ok.map((o) => o.responseMs - o.latencyMs).sort((a, b) => a - b);
  const response = ok.map((o) => o.responseMs).sort((a, b) => a - b);
  const latency = ok.map((o) => o.latencyMs).sort((a, b) => a - b);
  const cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  const lines = [
    `machine: ${cpus().length} CPUs (nproc), ${cpuModel}, Node ${process.version}; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')} (others' work shares these cores)`,
    `offered: ${rate} requests/s for ${durationS} s (${total} requests); not sent (over ${maxInFlight} in flight): ${dropped}`,
    `answered: ${outcomes.length} in ${seconds.toFixed(1)} s = ${(outcomes.length / seconds).toFixed(0)} requests/s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    `response time: p50 ${ms(percentile(response, 50))}, p99 ${ms(percentile(response, 99))}`,
    `model time (latency_ms): p50 ${ms(percentile(latency, 50))}, p99 ${ms(percentile(latency, 99))}`,
    `API process CPU: ${(apiCpu / outcomes.length).toFixed(2)} ms per request (${((apiCpu / 1000 / seconds) * 100).toFixed(0)}% of one core); load generator's event-loop delay p99 ${ms(loop.percentile(99) / 1e6)}`,
    `overhead (response − latency_ms): p50 ${ms(percentile(overhead, 50))}, p99 ${ms(percentile(overhead, 99))}, max ${ms(overhead.at(-1) ?? Number.NaN)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  api.kill('SIGTERM');
  agent.destroy();
  await model.close();
}
