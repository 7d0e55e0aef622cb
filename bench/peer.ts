// The peer in the bench (issue #10): the same telemetrygen load sent to an OpenTelemetry
// Collector that writes spans to Kafka (OTLP/HTTP receiver → batch processor → Kafka exporter,
// otlp_proto, acks=all) and to Orrery, one after the other, for each worker count. Each side's
// accepted spans are counted by its own metrics, not by what telemetrygen says it sent; prints
// both rates and their ratio.
//   npx tsx bench/peer.ts [--seconds 20] [--workers 1,8] [--processes 1] [--rounds 1]
//     [--generator-nice 19] [--url http://127.0.0.1:8080]
//
// On two shared cores a run's rate moves by a third from one minute to the next, for both sides.
// --rounds N runs the pair N times, Collector then Orrery each time, and prints each round's ratio
// (its two runs a minute apart) and their median beside the rates over all rounds.
//
// telemetrygen's workers are goroutines that make spans; they share one batch span processor,
// which exports one batch of 512 at a time (and drops what overflows its queue), so a telemetrygen
// process has one request in flight however many workers it has. --processes runs that many side
// by side, for that many requests in flight.
import './quiet-logs.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createApiKey, createOrg, enableTracing } from '../api/admin/commands.ts';
import { minInsyncReplicas, waitForLeaders } from '../infra/provision.ts';
import { kafkaVersion } from '../infra/stack/kafka.ts';
import { createClickHouse, sql } from '../platform/clickhouse.ts';
import { config } from '../platform/config.ts';
import { withAdmin } from '../platform/kafka.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import {
  addMerges,
  type MergeCounters,
  mergesBetween,
  mergesLine,
  readMergeCounters,
} from './clickhouse-merges.ts';
import { ingestPhases, meanAnswerSeconds, phasesLine } from './ingest-phases.ts';
import { machineLine } from './machine.ts';
import { buildPeerBinaries, peerVersions } from './peer-binaries.ts';
import { startPlatformProcesses } from './platform-process.ts';
import { type CpuSpent, cpuBetween, cpuLine, type Part, readCpu } from './process-cpu.ts';
import { speedCheck, speedLine } from './speed-check.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    workers: { type: 'string', default: '1,8' },
    processes: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    // The Kafka protocol version the Collector's exporter speaks (franz-go pins it exactly).
    'kafka-version': { type: 'string', default: kafkaVersion },
    // telemetrygen's niceness: 19 by default (see `generatorNice`); 0 is the first setup.
    'generator-nice': { type: 'string', default: '19' },
    // A platform already running; by default the bench starts its own.
    url: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const workerCounts = values.workers.split(',').map(Number);
const processes = Number(values.processes);
const rounds = Number(values.rounds);
/**
 * With `--rate 0` each telemetrygen process makes spans as fast as it can and its batch processor
 * drops what the exporter cannot send: measured here, one process with one worker burns 1.3 cores
 * whatever the endpoint answers. On two cores that is the load generator competing with the
 * system under test, which a load from other machines does not do. At niceness 19 it gets only
 * the CPU both targets leave idle; the load it offers is the same, and the same for both.
 *
 * Where the kernel groups processes by session for scheduling (autogroup, on by default in
 * Debian's kernels), a niceness counts only against processes of the same session: across
 * sessions the groups share the CPU equally. Started in the bench's session, telemetrygen at
 * niceness 19 then took its session's whole share whenever the API waited, at the full weight of
 * Kafka's, Postgres's and ClickHouse's own sessions (measured: 0.8 to 1.2 cores of the two, and
 * Kafka's acknowledgements of tiny messages 6 ms at p50 instead of 0.3). So each telemetrygen
 * starts a session of its own and its group gets the niceness too (`startGenerator`).
 */
const generatorNice = Number(values['generator-nice']);
if (
  !(seconds > 0) ||
  !workerCounts.every((w) => Number.isInteger(w) && w > 0) ||
  !(Number.isInteger(processes) && processes >= 1) ||
  !(Number.isInteger(rounds) && rounds >= 1) ||
  !(Number.isInteger(generatorNice) && generatorNice >= 0 && generatorNice <= 19)
)
  throw new Error(
    'use --seconds N, --workers N[,N...], --processes N and --rounds N with positive numbers, --generator-nice 0 to 19',
  );

/** The load, the same for both: exports of 512 spans, traces of a root and 3 children. */
const load = { batchSize: 512, childSpans: 3 };
/** Counting starts once connections are made and queues are full, and stops before the load does. */
const warmupSeconds = 2;
const tailSeconds = 2;
const peerTopic = 'orrery.bench-peer';

const log = (line: string) => process.stderr.write(`${line}\n`);
const settings = config();
if (settings.kafka.tls || settings.kafka.sasl)
  throw new Error(
    'bench/peer.ts gives the Collector plaintext brokers only; unset ORRERY_KAFKA_TLS and _SASL',
  );
const cacheDir = join(settings.stackDir, 'peer');
const logDir = join(cacheDir, 'logs');
mkdirSync(logDir, { recursive: true });
const binaries = buildPeerBinaries(cacheDir, log);

// Every process the bench starts is stopped when it ends, fails, or is interrupted.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function start(
  command: string,
  args: string[],
  logFile: string,
  env = process.env,
  detached = false,
): ChildProcess {
  const out = openSync(logFile, 'w');
  const child = spawn(command, args, { stdio: ['ignore', out, out], env, detached });
  closeSync(out);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Whether the kernel schedules by session (autogroup), so a session's group has a niceness of its own. */
const autogroups = (() => {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
})();

/** telemetrygen at `generatorNice`, in a session of its own whose scheduling group is as nice. */
function startGenerator(args: string[], logFile: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = start(
    'nice',
    ['-n', String(generatorNice), binaries.telemetrygen, ...args],
    logFile,
    env,
    true,
  );
  if (autogroups) writeFileSync(`/proc/${child.pid}/autogroup`, String(generatorNice));
  return child;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

async function stop(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(kill);
}

const tail = (file: string) => readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * The sum of the samples of `name` in a Prometheus text exposition whose labels pass `where`. A
 * counter may carry the `_total` suffix or not (the Collector's have not, since v0.1xx).
 */
function metricSum(text: string, name: string, where: (labels: string) => boolean = () => true): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = /^([A-Za-z_:][\w:]*)(\{.*\})?\s+(\S+)/.exec(line);
    const named = sample?.[1] === name || sample?.[1] === `${name}_total`;
    if (named && where(sample[2] ?? '')) sum += Number(sample[3]);
  }
  return sum;
}

async function metrics(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.text();
}

/** Spans a side has accepted (for the Collector, acknowledged by Kafka), spans and requests it failed. */
interface Counts {
  accepted: number;
  lostSpans: number;
  failedRequests: number;
}

interface Target {
  name: string;
  /** Readies a run (an Orrery org and key); where and how telemetrygen sends. */
  prepare(): Promise<{ url: URL; headers: Record<string, string> }>;
  counts(): Promise<Counts>;
  /** Waits until the run's work is done, so that it does not slow the next run down. */
  settle(): Promise<void>;
}

/** The peer's topic, fresh, like the spans topic: its partitions, copies and min.insync.replicas. */
async function freshPeerTopic(): Promise<void> {
  const { partitions, replicationFactor } = settings.kafka;
  await withAdmin('orrery-bench-peer', async (admin) => {
    if ((await admin.listTopics()).includes(peerTopic)) await admin.deleteTopics({ topics: [peerTopic] });
    // A topic being deleted cannot be created again until the deletion is done.
    await until('a fresh peer topic', 30_000, async () => {
      await admin.createTopics({
        topics: [
          {
            topic: peerTopic,
            numPartitions: partitions,
            replicationFactor,
            configEntries: [
              { name: 'min.insync.replicas', value: String(minInsyncReplicas(replicationFactor)) },
            ],
          },
        ],
      });
      return true;
    });
    await waitForLeaders(admin, [peerTopic]);
  });
}

async function deletePeerTopic(): Promise<void> {
  await withAdmin('orrery-bench-peer', (admin) => admin.deleteTopics({ topics: [peerTopic] }));
}

async function topicMessages(): Promise<number> {
  return withAdmin('orrery-bench-peer', async (admin) =>
    (await admin.fetchTopicOffsets(peerTopic)).reduce((sum, { high }) => sum + Number(high), 0),
  );
}

async function startCollector(): Promise<{ target: Target; process: ChildProcess }> {
  const [otlpPort, metricsPort] = [await freePort(), await freePort()];
  const configFile = join(cacheDir, 'otelcol-peer.yaml');
  // JSON is YAML; the Collector reads either.
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${otlpPort}` } } } },
        // The batch processor's default of 8,192 spans makes records of 1.3 MB from telemetrygen's
        // spans, over the 1 MB Kafka takes by default (and the exporter does not split them): the
        // Kafka exporter refuses them all. Half that fits, in the limits Orrery's topics have too.
        processors: { batch: { send_batch_size: 4096, send_batch_max_size: 4096 } },
        exporters: {
          kafka: {
            brokers: settings.kafka.brokers,
            protocol_version: values['kafka-version'],
            client_id: 'orrery-bench-peer',
            traces: { topic: peerTopic, encoding: 'otlp_proto' },
            producer: { required_acks: -1, allow_auto_topic_creation: false },
          },
        },
        service: {
          pipelines: { traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['kafka'] } },
          telemetry: {
            logs: { level: 'warn' },
            metrics: {
              readers: [{ pull: { exporter: { prometheus: { host: '127.0.0.1', port: metricsPort } } } }],
            },
          },
        },
      },
      null,
      2,
    ),
  );
  const logFile = join(logDir, 'otelcol.log');
  const child = start(binaries.collector, ['--config', configFile], logFile);
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const url = new URL(`http://127.0.0.1:${otlpPort}/v1/traces`);
  try {
    await until('the Collector', 30_000, async () => {
      if (exited(child)) return true;
      await metrics(metricsUrl);
      await fetch(url);
      return true;
    });
    if (exited(child)) throw new Error(`exited with ${child.exitCode ?? child.signalCode}`);
  } catch (error) {
    throw new Error(`the Collector did not start (${String(error)}); ${logFile} ends:\n${tail(logFile)}`);
  }
  const read = async () => {
    const text = await metrics(metricsUrl);
    return {
      received: metricSum(text, 'otelcol_receiver_accepted_spans'),
      refused:
        metricSum(text, 'otelcol_receiver_refused_spans') + metricSum(text, 'otelcol_receiver_failed_spans'),
      sent: metricSum(text, 'otelcol_exporter_sent_spans'),
      failed: metricSum(text, 'otelcol_exporter_send_failed_spans'),
    };
  };
  const target: Target = {
    name: `Collector ${peerVersions.collector}`,
    prepare: async () => ({ url, headers: {} }),
    counts: async () => {
      const now = await read();
      return { accepted: now.sent, lostSpans: now.refused + now.failed, failedRequests: 0 };
    },
    settle: async () => {
      // The receiver answers before Kafka has the spans; the exporter's queue drains after.
      await until('the Collector to drain its queue', 60_000, async () => {
        const now = await read();
        return now.sent + now.failed >= now.received;
      });
      const now = await read();
      log(
        `  Collector: ${now.sent} spans acknowledged by Kafka in all, ${await topicMessages()} messages on ${peerTopic}`,
      );
    },
  };
  return { target, process: child };
}

function orreryTarget(baseUrl: string): Target {
  const url = new URL('/api/otlp/v1/traces', baseUrl);
  let orgId = '';
  const read = async () => {
    const text = await metrics(new URL('/metrics', baseUrl).href);
    const verdict = (labels: string) => /verdict="(accepted|duplicate)"/.exec(labels)?.[1];
    return {
      accepted: metricSum(text, 'orrery_otlp_spans', (labels) => verdict(labels) === 'accepted'),
      refused: metricSum(text, 'orrery_otlp_spans', (labels) => verdict(labels) === undefined),
      failedRequests: metricSum(
        text,
        'orrery_http_request_duration_seconds_count',
        (labels) => labels.includes(`route="${url.pathname}"`) && !labels.includes('status="200"'),
      ),
    };
  };
  return {
    name: 'Orrery',
    prepare: async () => {
      // An org per run: each starts its month at nought, under the spec's 1,000,000 spans a month.
      const org = await createOrg(admin, 'Peer Bench Org');
      orgId = org.orgId;
      await enableTracing(admin, orgId);
      const { key } = await createApiKey(admin, orgId, ['traces:write']);
      const headers = { Authorization: `Bearer ${key}` };
      // The API learns of the key from the org stream; an empty export is accepted once it has.
      await until('the API to know the new key', 15_000, async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-protobuf' },
          body: new Uint8Array(),
        });
        await response.arrayBuffer();
        return response.ok;
      });
      return { url, headers };
    },
    counts: async () => {
      const now = await read();
      return { accepted: now.accepted, lostSpans: now.refused, failedRequests: now.failedRequests };
    },
    settle: async () => {
      // Until the consumers have projected the run's spans into ClickHouse.
      const ledger = await pool.query<{ spans: string }>(
        'SELECT coalesce(sum(spans), 0) AS spans FROM ingest_monthly WHERE org_id = $1',
        [orgId],
      );
      const kept = Number(ledger.rows[0]!.spans);
      const started = performance.now();
      await until('the spans to be queryable in ClickHouse', 300_000, async () => {
        const result = await clickhouse.query({
          query: sql`SELECT count() AS n FROM spans WHERE org_id = ${orgId}`.text,
          format: 'JSONEachRow',
        });
        const [row] = await result.json<{ n: string }>();
        return Number(row?.n) >= kept;
      });
      log(
        `  Orrery: ${kept} spans kept in all, queryable in ClickHouse ${((performance.now() - started) / 1000).toFixed(1)} s after the load stopped`,
      );
    },
  };
}

interface Measured {
  /** Spans accepted while counting, over that many seconds. */
  spans: number;
  seconds: number;
  lostSpans: number;
  failedRequests: number;
  /** Each part's CPU while counting, in ms, and what the host took meanwhile. */
  cpu: CpuSpent;
  /** What ClickHouse inserted and merged while counting. */
  merges: MergeCounters;
}

const spansPerSecond = (measured: Measured) => measured.spans / measured.seconds;

/**
 * Where an exporter's time goes: each telemetrygen process has one request in flight, so one comes
 * back every processes × batch / rate; the API holds it from arrival to answer, and the rest is
 * telemetrygen's own turn (making the next batch and sending it, at its niceness, on the CPU the
 * platform leaves).
 */
function cycleLine(orrery: Measured, answerSeconds: number | undefined): string | undefined {
  if (answerSeconds === undefined || orrery.spans === 0) return undefined;
  const cycleMs = ((processes * load.batchSize) / spansPerSecond(orrery)) * 1000;
  const answerMs = answerSeconds * 1000;
  return `each of the ${processes} requests in flight came back every ${cycleMs.toFixed(0)} ms: ${answerMs.toFixed(0)} ms from its arrival to its answer in the API, ${(cycleMs - answerMs).toFixed(0)} ms from its answer to telemetrygen's next request`;
}

/** Several runs of one side as one: their spans over their seconds, their CPU added up. */
function pooled(runs: Measured[]): Measured {
  const cpu = new Map<Part, number>();
  let stolenMs = 0;
  for (const run of runs) {
    for (const [part, ms] of run.cpu.byPart) cpu.set(part, (cpu.get(part) ?? 0) + ms);
    stolenMs += run.cpu.stolenMs;
  }
  const sum = (field: 'spans' | 'seconds' | 'lostSpans' | 'failedRequests') =>
    runs.reduce((total, run) => total + run[field], 0);
  return {
    spans: sum('spans'),
    seconds: sum('seconds'),
    lostSpans: sum('lostSpans'),
    failedRequests: sum('failedRequests'),
    cpu: { byPart: [...cpu], stolenMs },
    merges: addMerges(runs.map((run) => run.merges)),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One run: telemetrygen against a target, the target's counts read after warm-up and `seconds` later. */
async function measure(target: Target, workers: number): Promise<Measured> {
  const { url, headers } = await target.prepare();
  const duration = warmupSeconds + seconds + tailSeconds;
  const args = [
    'traces',
    '--otlp-http',
    '--otlp-endpoint',
    url.host,
    '--otlp-http-url-path',
    url.pathname,
    ...(url.protocol === 'http:' ? ['--otlp-insecure'] : []),
    '--workers',
    String(workers),
    '--rate',
    '0',
    '--duration',
    `${duration}s`,
    '--child-spans',
    String(load.childSpans),
    '--batch-size',
    String(load.batchSize),
    ...Object.entries(headers).flatMap(([name, value]) => ['--otlp-header', `${name}="${value}"`]),
  ];
  // The OTEL_* variables would change the exporter (compression, timeouts); both sides get none.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const slug = `${target.name.split(' ')[0]!.toLowerCase()}-${workers}w`;
  const logFiles = Array.from({ length: processes }, (_, index) =>
    join(logDir, `telemetrygen-${slug}-${index}.log`),
  );
  log(`${target.name}: ${workers} workers × ${processes} process(es) for ${duration} s ...`);
  const generators = logFiles.map((logFile) => startGenerator(args, logFile, env));
  try {
    await sleep(warmupSeconds * 1000);
    const from = performance.now();
    const before = await target.counts();
    const cpuBefore = readCpu();
    const mergesBefore = await readMergeCounters(clickhouse);
    await sleep(from + seconds * 1000 - performance.now());
    const to = performance.now();
    const cpuAfter = readCpu();
    const mergesAfter = await readMergeCounters(clickhouse);
    const after = await target.counts();
    generators.forEach((generator, index) => {
      if (exited(generator))
        throw new Error(
          `telemetrygen stopped before its time; ${logFiles[index]} ends:\n${tail(logFiles[index]!)}`,
        );
    });
    await Promise.all(
      generators.map(async (generator, index) => {
        const done = new Promise((resolve) => generator.once('exit', resolve));
        if (!exited(generator)) await Promise.race([done, sleep((tailSeconds + 30) * 1000)]);
        await stop(generator);
        if (generator.exitCode !== 0)
          log(
            `  telemetrygen ended with ${generator.exitCode ?? generator.signalCode}; see ${logFiles[index]}`,
          );
      }),
    );
    await target.settle();
    return {
      spans: after.accepted - before.accepted,
      seconds: (to - from) / 1000,
      cpu: cpuBetween(cpuBefore, cpuAfter),
      merges: mergesBetween(mergesBefore, mergesAfter),
      lostSpans: after.lostSpans - before.lostSpans,
      failedRequests: after.failedRequests - before.failedRequests,
    };
  } finally {
    await Promise.all(generators.map(stop));
  }
}

const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench-peer');
const clickhouse = createClickHouse();
const admin = { pool, producer };
let collector: ChildProcess | undefined;
let platform: { baseUrl: string; stop: () => Promise<void> } | undefined;

let cleaning: Promise<void> | undefined;
const cleanup = () => {
  cleaning ??= (async () => {
    await Promise.all([...live].filter((child) => child !== collector).map(stop));
    if (collector) await stop(collector);
    await platform?.stop();
    await deletePeerTopic().catch((error) => log(`could not delete ${peerTopic}: ${String(error)}`));
    await producer.disconnect();
    await Promise.all([pool.end(), clickhouse.close()]);
  })();
  return cleaning;
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: stopping what the bench started`);
    void cleanup().finally(() => process.exit(130));
  });

try {
  await freshPeerTopic();
  const peer = await startCollector();
  collector = peer.process;
  platform = values.url
    ? { baseUrl: values.url, stop: async () => undefined }
    : await startPlatformProcesses({ api: 18580, consumers: 18590 });
  const orrery = orreryTarget(platform.baseUrl);

  const rows: {
    workers: number;
    peer: Measured;
    orrery: Measured;
    pairs: { peer: Measured; orrery: Measured }[];
    phases: string;
    answerSeconds: number | undefined;
  }[] = [];
  const speedBefore = speedCheck();
  for (const workers of workerCounts) {
    const pairs: { peer: Measured; orrery: Measured }[] = [];
    // The API's phase metrics grow only while Orrery is sent to, so one reading spans all rounds.
    const phasesBefore = await ingestPhases(platform.baseUrl);
    for (let round = 0; round < rounds; round += 1)
      pairs.push({ peer: await measure(peer.target, workers), orrery: await measure(orrery, workers) });
    const phasesAfter = await ingestPhases(platform.baseUrl);
    rows.push({
      workers,
      peer: pooled(pairs.map((pair) => pair.peer)),
      orrery: pooled(pairs.map((pair) => pair.orrery)),
      pairs,
      phases: phasesLine(phasesBefore, phasesAfter),
      answerSeconds: meanAnswerSeconds(phasesBefore, phasesAfter),
    });
  }

  const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
  const table = [
    ['workers', 'Collector spans/s', 'Orrery spans/s', 'Collector/Orrery'],
    ...rows.map(({ workers, peer, orrery }) => [
      String(workers),
      thousands(spansPerSecond(peer)),
      thousands(spansPerSecond(orrery)),
      orrery.spans > 0 ? `${(spansPerSecond(peer) / spansPerSecond(orrery)).toFixed(1)}×` : '-',
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  console.log(machineLine());
  console.log(speedLine(speedBefore, speedCheck()));
  console.log(
    `peer: telemetrygen ${peerVersions.telemetrygen} over OTLP/HTTP (protobuf), exports of ${load.batchSize} spans, ${load.childSpans + 1} spans a trace, ${processes} process(es) at niceness ${generatorNice}${autogroups ? ' (each in a scheduling group of its own, as nice)' : ''}; ${seconds} s counted per run after ${warmupSeconds} s of warm-up; ${rounds} round(s), rates over all of them`,
  );
  console.log(
    `  Collector ${peerVersions.collector}: OTLP/HTTP receiver -> batch processor -> Kafka exporter (otlp_proto, acks=all, protocol ${values['kafka-version']}); counted: spans Kafka acknowledged`,
  );
  console.log(
    '  Orrery: POST /api/otlp/v1/traces, answered after Kafka acknowledged; counted: spans accepted',
  );
  for (const row of table)
    console.log(`  ${row.map((cell, column) => cell.padStart(widths[column]!)).join('  ')}`);
  if (rounds > 1)
    for (const { workers, pairs } of rows) {
      const ratios = pairs.map((pair) => spansPerSecond(pair.peer) / spansPerSecond(pair.orrery));
      const each = pairs.map(
        (pair, index) =>
          `${thousands(spansPerSecond(pair.peer))} / ${thousands(spansPerSecond(pair.orrery))} (${ratios[index]!.toFixed(1)}×)`,
      );
      console.log(
        `  with ${workers} workers, each round's Collector / Orrery spans/s: ${each.join(', ')}; Orrery's median ${thousands(median(pairs.map((pair) => spansPerSecond(pair.orrery))))}, the ratio's median ${median(ratios).toFixed(1)}×`,
      );
    }
  for (const { workers, phases } of rows) console.log(`  Orrery with ${workers} workers: ${phases}`);
  for (const { workers, orrery, answerSeconds } of rows) {
    const line = cycleLine(orrery, answerSeconds);
    if (line) console.log(`  Orrery with ${workers} workers: ${line}`);
  }
  // Every process on the machine, by part: on shared cores what the other parts spend on each
  // span (the projections into ClickHouse, Kafka, Postgres) bounds the rate as much as the API.
  for (const { workers, peer, orrery } of rows)
    for (const [name, { cpu, spans, seconds: counted }] of [
      ['Collector', peer],
      ['Orrery', orrery],
    ] as const)
      console.log(`  ${name} with ${workers} workers: ${cpuLine(cpu, spans, 'spans', counted)}`);
  for (const { workers, orrery } of rows)
    console.log(`  Orrery with ${workers} workers, while counted: ${mergesLine(orrery.merges)}`);
  // Spans lost while counting would make a rate look better or worse than it is: say so.
  for (const { workers, peer, orrery } of rows) {
    if (peer.lostSpans > 0)
      console.log(
        `  note: with ${workers} workers the Collector refused or failed to send ${peer.lostSpans} spans`,
      );
    if (orrery.lostSpans > 0)
      console.log(
        `  note: with ${workers} workers Orrery refused ${orrery.lostSpans} spans (monthly limit?)`,
      );
    if (orrery.failedRequests > 0)
      console.log(`  note: with ${workers} workers ${orrery.failedRequests} requests to Orrery failed`);
  }
} finally {
  await cleanup();
}
