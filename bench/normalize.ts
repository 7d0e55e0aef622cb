// The OTLP hot path's CPU per span, without I/O: decode a gzip'd protobuf batch of 512 realistic
// LLM spans, normalize it (redact, read, cut), and encode the span events as published.
//   npx tsx bench/normalize.ts [--rounds 200]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeProtobuf } from '../api/otlp/decode-protobuf.ts';
import { normalizeRequest } from '../api/otlp/ingest.ts';
import { pricesInEffect } from '../domain/tracing/default-prices.ts';
import { frameHeader } from '../platform/registry.ts';
import { encodeSpanEvent } from '../schemas/events/spans-encode.ts';
import { toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { llmRequest, llmSpans } from './llm-spans.ts';
import { machineLine, percentile } from './machine.ts';
import { stolenMs, threadCpuMs } from './process-cpu.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Number(values.rounds);
const body = gzipSync(toProtobuf(llmRequest(llmSpans(512))));
const header = frameHeader(1);
const phases = { decode: [] as number[], normalize: [] as number[], encode: [] as number[] };
/**
 * The same phases in this thread's CPU time, summed over the measured rounds: the wall time above
 * also counts what the host took from the core (steal) and other processes' turns, the CPU time
 * does not. Where both move together from one run to the next, the cores themselves ran slower.
 * The kernel brings a thread's CPU time up to date only at its scheduler tick (4 ms here), longer
 * than a phase, so one round's reading is off by up to a tick: a median of them means nothing,
 * but the errors average out over hundreds of rounds, so the mean holds.
 */
const cpuPhases = { decode: 0, normalize: 0, encode: 0 };
const stolenBefore = stolenMs();
const runStarted = performance.now();

for (let round = 0; round < rounds; round += 1) {
  const started = performance.now();
  const startedCpu = threadCpuMs();
  const decoded = decodeProtobuf(gunzipSync(body));
  const normalizedAt = performance.now();
  const normalizedAtCpu = threadCpuMs();
  // Priced as the API prices a request: the org's prices (none of its own here) over the defaults.
  const spans = normalizeRequest(decoded, pricesInEffect([]));
  const encodedAt = performance.now();
  const encodedAtCpu = threadCpuMs();
  encodeSpanEvent(
    {
      type: 'SpansReceived',
      eventId: 'e',
      orgId: 'o',
      occurredAt: new Date(),
      traces: [{ traceId: 't', traceFirstReceivedAt: new Date(), spans }],
    },
    header,
  );
  const done = performance.now();
  const doneCpu = threadCpuMs();
  if (round < rounds / 4) continue; // warm-up
  phases.decode.push(normalizedAt - started);
  phases.normalize.push(encodedAt - normalizedAt);
  phases.encode.push(done - encodedAt);
  cpuPhases.decode += normalizedAtCpu - startedCpu;
  cpuPhases.normalize += encodedAtCpu - normalizedAtCpu;
  cpuPhases.encode += doneCpu - encodedAtCpu;
}
const stolenShare = (stolenMs() - stolenBefore) / (performance.now() - runStarted) / cpus().length;

console.log(machineLine());
console.log(
  `normalize: ${rounds} rounds of a 512-span batch (${(body.length / 1024).toFixed(0)} KiB gzip), after warm-up`,
);
const medianOf = (times: number[]) =>
  percentile(
    [...times].sort((a, b) => a - b),
    50,
  );
const perSpan = (ms: number) => `${((ms * 1000) / 512).toFixed(1)} µs per span`;
let total = 0;
let totalCpu = 0;
for (const phase of ['decode', 'normalize', 'encode'] as const) {
  const median = medianOf(phases[phase]);
  const meanCpu = cpuPhases[phase] / phases[phase].length;
  total += median;
  totalCpu += meanCpu;
  console.log(
    `  ${phase}: median ${median.toFixed(2)} ms per batch, ${perSpan(median)}; CPU time, mean: ${perSpan(meanCpu)}`,
  );
}
console.log(
  `  total: ${total.toFixed(2)} ms per batch = ${((512 / total) * 1000).toFixed(0)} spans/s on one core; CPU time, mean: ${perSpan(totalCpu)}`,
);
console.log(`  taken by the host over the run (steal): ${(stolenShare * 100).toFixed(0)}% of the cores`);
