// The OTLP hot path's CPU per span, without I/O: decode a gzip'd protobuf batch of 512 realistic
// LLM spans, normalize it (redact, read, cut), and encode the span events as published.
//   npx tsx bench/normalize.ts [--rounds 200]
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeProtobuf } from '../api/otlp/decode-protobuf.ts';
import { normalizeRequest } from '../api/otlp/ingest.ts';
import { encodeWire } from '../platform/registry.ts';
import { valueType } from '../schemas/events/index.ts';
import { spanEventToWire } from '../schemas/events/spans-mapping.ts';
import { request, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { benchResource, llmSpans } from './llm-spans.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Number(values.rounds);
const batch = request(llmSpans(512));
batch.resourceSpans[0]!.resource.attributes = benchResource;
const body = gzipSync(toProtobuf(batch));
const eventType = valueType('spans');
const phases = { decode: [] as number[], normalize: [] as number[], encode: [] as number[] };

for (let round = 0; round < rounds; round += 1) {
  const started = performance.now();
  const decoded = decodeProtobuf(gunzipSync(body));
  const normalizedAt = performance.now();
  const spans = normalizeRequest(decoded);
  const encodedAt = performance.now();
  const wire = spanEventToWire({
    type: 'SpansReceived',
    eventId: 'e',
    orgId: 'o',
    occurredAt: new Date(),
    traces: [{ traceId: 't', traceFirstReceivedAt: new Date(), spans }],
  });
  encodeWire(eventType, wire);
  const done = performance.now();
  if (round < rounds / 4) continue; // warm-up
  phases.decode.push(normalizedAt - started);
  phases.normalize.push(encodedAt - normalizedAt);
  phases.encode.push(done - encodedAt);
}

console.log(machineLine());
console.log(
  `normalize: ${rounds} rounds of a 512-span batch (${(body.length / 1024).toFixed(0)} KiB gzip), after warm-up`,
);
let total = 0;
for (const [phase, times] of Object.entries(phases)) {
  times.sort((a, b) => a - b);
  const median = percentile(times, 50);
  total += median;
  console.log(
    `  ${phase}: median ${median.toFixed(2)} ms per batch, ${((median * 1000) / 512).toFixed(1)} µs per span`,
  );
}
console.log(
  `  total: ${total.toFixed(2)} ms per batch = ${((512 / total) * 1000).toFixed(0)} spans/s on one core`,
);
