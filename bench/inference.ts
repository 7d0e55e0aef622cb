import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { hashApiKey } from '../api/auth/api-keys.ts';
import type { OrgEvent } from '../domain/orgs/events.ts';
import { platformNodeOptions } from '../infra/node-options.ts';
import { publishOrgEvents } from '../producers/org.ts';
import { createEventProducer } from '../producers/producer.ts';
import { refusedBaseUrl } from '../test/harness/model-server.ts';
import { projectUsageUntilCaughtUp } from './catch-up.ts';
import { percentile } from './machine.ts';
import { cpuBetween, cpuLine, processCpuMs, readCpu } from './process-cpu.ts';
import { speedCheck, speedLine } from './speed-check.ts';

// The title endpoint under a fixed offered rate (open loop): requests per second, and the time
// the service adds over the model's own (response time − latency_ms), p50 and p99. It starts
// what it needs itself: a stand-in model that answers at once (bench/stand-in-model.ts, its own
// process, so the model's work does not delay the load generator), an org with a key and credit on
// the running stack's org stream, and the platform as `npm start` runs it: the API, the consumers
// and the jobs, each its own process, sharing the cores as they do in production (--api-only runs
// the API alone, as this bench did before). Usage events go to Kafka as in production,
// acknowledged before each answer, and the consumers project them meanwhile.
// It measures `--runs` times after a warm-up and prints each run and the p99s side by side: on
// these shared cores one run's p99 moves by several milliseconds from one run to the next. The
// overhead is measured twice: at the client (includes the load generator's own delays) and in
// the service (the API's Server-Timing header: from the request reaching Fastify to the answer).
//   npx tsx bench/inference.ts [--rate 500] [--duration 20] [--runs 3] [--warmup 30] [--api-only]

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '30' },
    'api-only': { type: 'boolean', default: false },
  },
});
const apiOnly = values['api-only'];
const rate = Number(values.rate);
const durationS = Number(values.duration);
const runs = Number(values.runs);
const warmupS = Number(values.warmup);
if (!Number.isInteger(warmupS / 5) || warmupS < 0) {
  process.stderr.write(`--warmup is whole 5 s windows (0, 5, 10, …); ${values.warmup} was given\n`);
  process.exit(2);
}
const total = Math.round(rate * durationS);
const maxInFlight = 2_000;

const model = spawn(process.execPath, ['--import', 'tsx', 'bench/stand-in-model.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const modelBaseUrl = await new Promise<string>((resolve, reject) => {
  model.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  model.once('exit', () => reject(new Error('the stand-in model exited before it listened')));
});
const port = Number(new URL(await refusedBaseUrl()).port);
const models = [{ name: 'bench', writes: ['titles', 'previews'], baseUrl: modelBaseUrl, timeoutMs: 5000 }];

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
    createdBy: '',
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

const freePort = async () => Number(new URL(await refusedBaseUrl()).port);
const platformPorts = {
  ORRERY_API_PORT: String(port),
  ORRERY_CONSUMERS_PORT: String(await freePort()),
  ORRERY_JOBS_PORT: String(await freePort()),
};
/** A platform process as infra/platform.ts starts it, on this bench's ports. */
const startProcess = (entry: string, service: string, nodeArgs: string[] = []): ChildProcess =>
  spawn(process.execPath, [...platformNodeOptions, ...nodeArgs, '--import', 'tsx', entry], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...platformPorts,
      ORRERY_MODELS: JSON.stringify(models),
      ORRERY_LOG_LEVEL: 'warn',
      ORRERY_SERVICE: service,
    },
  });
const api = startProcess(
  'api/main.ts',
  'bench-api',
  (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
);
const others = apiOnly
  ? []
  : [startProcess('consumers/main.ts', 'bench-consumers'), startProcess('jobs/main.ts', 'bench-jobs')];

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
  /** The API's own time for the request, from its Server-Timing header. */
  serviceMs: number;
}

const serviceTiming = /(?:^|,)\s*service;dur=([\d.]+)/;

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
          const serviceMs = Number(
            serviceTiming.exec(String(res.headers['server-timing']))?.[1] ?? Number.NaN,
          );
          resolve({ status: res.statusCode ?? 0, responseMs, latencyMs, serviceMs });
        });
      },
    );
    req.on('error', () =>
      resolve({
        status: 0,
        responseMs: performance.now() - started,
        latencyMs: Number.NaN,
        serviceMs: Number.NaN,
      }),
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

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const ms = (value: number) => `${value.toFixed(2)} ms`;
/** The time the service added over the model's own, per answered request (Server-Timing), sorted. */
const serviceOverheadOf = (answered: Outcome[]) => sorted(answered.map((o) => o.serviceMs - o.latencyMs));

interface RunFigures {
  overheadP99: number;
  serviceOverheadP99: number;
}

/** One measured run at the offered rate, printed; returns its p99s for the summary. */
async function measuredRun(index: number): Promise<RunFigures> {
  const speedBefore = speedCheck();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const apiCpuBefore = processCpuMs(api.pid!);
  const cpuBefore = readCpu();
  const { outcomes, seconds, dropped } = await offer(total, rate);
  const apiCpu = processCpuMs(api.pid!) - apiCpuBefore;
  const cpuSpent = cpuBetween(cpuBefore, readCpu());
  loop.disable();
  const ok = outcomes.filter((o) => o.status === 200);
  const statuses = new Map<number, number>();
  for (const o of outcomes) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
  const overhead = sorted(ok.map((o) => o.responseMs - o.latencyMs));
  const serviceOverhead = serviceOverheadOf(ok);
  const response = sorted(ok.map((o) => o.responseMs));
  const latency = sorted(ok.map((o) => o.latencyMs));
  const lines = [
    `run ${index}: offered ${rate} requests/s for ${durationS} s (${total} requests); not sent (over ${maxInFlight} in flight): ${dropped}`,
    `  answered: ${outcomes.length} in ${seconds.toFixed(1)} s = ${(outcomes.length / seconds).toFixed(0)} requests/s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    `  response time: p50 ${ms(percentile(response, 50))}, p99 ${ms(percentile(response, 99))}`,
    `  model time (latency_ms): p50 ${ms(percentile(latency, 50))}, p99 ${ms(percentile(latency, 99))}`,
    `  API process CPU: ${(apiCpu / outcomes.length).toFixed(2)} ms per request (${((apiCpu / 1000 / seconds) * 100).toFixed(0)}% of one core); load generator's event-loop delay p99 ${ms(loop.percentile(99) / 1e6)}`,
    `  overhead at the client (response − latency_ms): p50 ${ms(percentile(overhead, 50))}, p99 ${ms(percentile(overhead, 99))}, max ${ms(overhead.at(-1) ?? Number.NaN)}`,
    `  overhead in the service (Server-Timing service − model): p50 ${ms(percentile(serviceOverhead, 50))}, p99 ${ms(percentile(serviceOverhead, 99))}`,
    `  ${cpuLine(cpuSpent, outcomes.length, 'requests', seconds)}`,
    `  ${speedLine(speedBefore, speedCheck())}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return { overheadP99: percentile(overhead, 99), serviceOverheadP99: percentile(serviceOverhead, 99) };
}

try {
  await waitForApi();
  // Warm-up at the offered rate: JIT, and as many keep-alive connections (to the API, to the
  // model, to Kafka) as the rate needs, so the runs measure the steady state. Printed in 5 s
  // windows, since it settles slowly: on two cores the API's CPU per request went from 1.34 to
  // 0.93 ms over 25 s, and after a 5 s warm-up the first run's p99 was 25-107 ms against 8-16 for
  // the next two.
  for (let window = 0; window < warmupS / 5; window += 1) {
    const apiCpuBefore = processCpuMs(api.pid!);
    const { outcomes } = await offer(rate * 5, rate);
    const apiCpu = processCpuMs(api.pid!) - apiCpuBefore;
    const serviceOverhead = serviceOverheadOf(outcomes.filter((o) => o.status === 200));
    process.stdout.write(
      `warm-up ${window * 5}-${window * 5 + 5} s: API ${(apiCpu / outcomes.length).toFixed(2)} ms CPU per request, overhead in the service p99 ${ms(percentile(serviceOverhead, 99))}\n`,
    );
  }
  const cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  process.stdout.write(
    `machine: ${cpus().length} CPUs (nproc), ${cpuModel}, Node ${process.version}; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')} (others' work shares these cores)\n`,
  );
  process.stdout.write(
    apiOnly
      ? 'platform: the API alone (--api-only)\n'
      : 'platform: the API, the consumers and the jobs, as `npm start` runs them\n',
  );
  const figures: RunFigures[] = [];
  for (let index = 1; index <= runs; index += 1) figures.push(await measuredRun(index));
  const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] ?? Number.NaN;
  const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
  const clientP99s = figures.map((f) => f.overheadP99);
  const serviceP99s = figures.map((f) => f.serviceOverheadP99);
  process.stdout.write(
    `overhead p99 over ${runs} runs: at the client ${list(clientP99s)} ms (median ${ms(median(clientP99s))}); in the service ${list(serviceP99s)} ms (median ${ms(median(serviceP99s))})\n`,
  );
  for (const child of [api, ...others]) child.kill('SIGTERM');
  process.stdout.write(
    'projecting the usage events published, so no backlog is left for the next run of the consumers…\n',
  );
  await projectUsageUntilCaughtUp(producer);
} finally {
  for (const child of [api, ...others]) child.kill('SIGTERM');
  agent.destroy();
  model.kill('SIGTERM');
  await producer.disconnect();
}
