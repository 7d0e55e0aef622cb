// Load generator for the OTLP endpoint (issue #3): realistic LLM traces, protobuf, gzip, batches
// of 512, sent by a few concurrent exporters for a fixed time. Prints spans/s accepted, request
// latency p50/p99, and how long until spans are queryable in ClickHouse.
//   npx tsx bench/ingest.ts [--seconds 20] [--concurrency 4] [--batch 512]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApiKey, createOrg, enableTracing } from '../api/admin/commands.ts';
import type { KeyValue, OtlpSpan } from '../domain/tracing/otlp.ts';
import { createClickHouse, sql } from '../platform/clickhouse.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { request, responseType, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { machineLine, percentile } from './machine.ts';
import { startPlatformProcesses } from './platform-process.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
    batch: { type: 'string', default: '512' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const batchSize = Number(values.batch);

const str = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });
const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const prompt = 'Summarise the customer conversation below and propose a reply. '.repeat(12);

/** One agent turn: an agent span, two generations with messages, and a tool call. */
function trace(startMs: number): OtlpSpan[] {
  const traceId = hex(16);
  const root = hex(8);
  const ns = (ms: number) => BigInt(Math.round(ms * 1e6));
  const base = {
    traceId,
    traceState: '',
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    status: { code: 0 as const, message: '' },
  };
  const generation = (offset: number): OtlpSpan => ({
    ...base,
    spanId: hex(8),
    parentSpanId: root,
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: ns(startMs + offset),
    endTimeUnixNano: ns(startMs + offset + 800),
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.request.model', 'gpt-4o-mini'),
      str('gen_ai.response.model', 'gpt-4o-mini-2024-07-18'),
      int('gen_ai.usage.input_tokens', 812),
      int('gen_ai.usage.output_tokens', 96),
      str(
        'gen_ai.input.messages',
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]),
      ),
      str(
        'gen_ai.output.messages',
        JSON.stringify([
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'Here is a reply that addresses the refund request politely.' }],
            finish_reason: 'stop',
          },
        ]),
      ),
      str('session.id', `session-${traceId.slice(0, 6)}`),
      str('user.id', 'user-42'),
    ],
  });
  return [
    {
      ...base,
      spanId: root,
      parentSpanId: '',
      name: 'support-agent',
      kind: 1,
      startTimeUnixNano: ns(startMs),
      endTimeUnixNano: ns(startMs + 3000),
      attributes: [str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'support')],
    },
    generation(10),
    {
      ...base,
      spanId: hex(8),
      parentSpanId: root,
      name: 'execute_tool lookup_order',
      kind: 1,
      startTimeUnixNano: ns(startMs + 900),
      endTimeUnixNano: ns(startMs + 950),
      attributes: [
        str('gen_ai.operation.name', 'execute_tool'),
        str('gen_ai.tool.name', 'lookup_order'),
        str('gen_ai.tool.call.arguments', '{"order_id":"A-1042"}'),
        str('gen_ai.tool.call.result', '{"status":"shipped","eta":"2026-11-25"}'),
      ],
    },
    generation(1000),
  ];
}

function batches(count: number): { body: Buffer; lastTraceId: string }[] {
  const made: { body: Buffer; lastTraceId: string }[] = [];
  for (let index = 0; index < count; index += 1) {
    const spans: OtlpSpan[] = [];
    while (spans.length < batchSize) spans.push(...trace(Date.now()));
    spans.length = batchSize;
    const req = request(spans);
    req.resourceSpans[0]!.resource.attributes = [
      str('service.name', 'support-bot'),
      str('deployment.environment.name', 'bench'),
    ];
    made.push({ body: gzipSync(toProtobuf(req)), lastTraceId: spans[spans.length - 1]!.traceId });
  }
  return made;
}

const platform = await startPlatformProcesses({ api: 18480, consumers: 18490 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const clickhouse = createClickHouse();
try {
  const org = await createOrg({ pool, producer }, 'Bench Org');
  await enableTracing({ pool, producer }, org.orgId);
  const { key } = await createApiKey({ pool, producer }, org.orgId, ['traces:write']);
  await new Promise((resolve) => setTimeout(resolve, 500));

  // Enough distinct batches for the run at ~15,000 spans/s, made before the clock starts.
  const prepared = batches(Math.ceil((seconds * 15_000) / batchSize));
  process.stderr.write(
    `prepared ${prepared.length} batches of ${batchSize} spans (${(prepared[0]!.body.length / 1024).toFixed(0)} KiB gzip each)\n`,
  );

  const latencies: number[] = [];
  const visibility: number[] = [];
  let accepted = 0;
  let rejected = 0;
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  const acked: { traceId: string; at: number }[] = [];

  async function sender() {
    while (performance.now() < stopAt && next < prepared.length) {
      const batch = prepared[next++]!;
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
      acked.push({ traceId: batch.lastTraceId, at: performance.now() });
    }
  }

  async function sampler() {
    while (performance.now() < stopAt + 15_000) {
      const sample = acked.at(-1);
      if (!sample || performance.now() > stopAt) {
        if (performance.now() > stopAt) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      for (;;) {
        const result = await clickhouse.query({
          query:
            sql`SELECT count() AS n FROM spans WHERE org_id = ${org.orgId} AND trace_id = ${sample.traceId}`
              .text,
          format: 'JSONEachRow',
        });
        const [row] = await result.json<{ n: string }>();
        if (Number(row?.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      visibility.push(performance.now() - sample.at);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  await Promise.all([...Array.from({ length: concurrency }, sender), sampler()]);
  const elapsed = (performance.now() - started) / 1000;
  const sendSeconds = Math.min(elapsed, seconds);
  latencies.sort((a, b) => a - b);
  visibility.sort((a, b) => a - b);
  console.log(machineLine());
  console.log(
    `ingest: ${seconds} s, ${concurrency} concurrent exporters, batches of ${batchSize} spans (protobuf, gzip)`,
  );
  console.log(`  requests: ${latencies.length} (${failures} failed)`);
  console.log(
    `  spans accepted: ${accepted} (${rejected} refused) = ${(accepted / sendSeconds).toFixed(0)} spans/s`,
  );
  console.log(
    `  request latency: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
  console.log(
    `  queryable in ClickHouse after the answer: p50 ${percentile(visibility, 50).toFixed(0)} ms, max ${(visibility.at(-1) ?? Number.NaN).toFixed(0)} ms (${visibility.length} samples)`,
  );
} finally {
  await platform.stop();
  await producer.disconnect();
  await pool.end();
  await clickhouse.close();
}
