import type { AddressInfo } from 'node:net';
import { context, type Span, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { freePort } from '../harness/ports.ts';
import { tracingOrg } from '../harness/tracing.ts';

// The real OpenTelemetry JS exporters, nobody's code here, send over HTTP to the endpoint on a
// real port; the spans are read back through the query API.
let platform: TestPlatform;
let baseUrl: string;
let key: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  await platform.api.listen({ host: '127.0.0.1', port: await freePort() });
  baseUrl = `http://127.0.0.1:${(platform.api.server.address() as AddressInfo).port}`;
  ({ key } = await tracingOrg(platform));
});
afterAll(() => platform.stop());

/** An agent turn: the agent span with a generation and a tool call inside it. */
async function sendAgentTurn(exporter: SpanExporter, service: string): Promise<string> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'deployment.environment.name': 'e2e' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('orrery-e2e', '1.0.0');
  const agent = tracer.startSpan('invoke_agent support', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'session.id': `session-${service}`,
      'user.id': 'ada',
    },
  });
  const inside = trace.setSpan(context.active(), agent);
  const child = (name: string, attributes: Record<string, string | number>): Span =>
    tracer.startSpan(name, { attributes }, inside);
  child('chat gpt-4o', {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 30,
    'gen_ai.input.messages': JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] },
    ]),
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me check. My key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789' },
        ],
      },
    ]),
  }).end();
  child('execute_tool lookup_order', {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.call.arguments': '{"order":"A-1"}',
    'gen_ai.tool.call.result': '{"status":"shipped"}',
  }).end();
  agent.end();
  await provider.forceFlush();
  await provider.shutdown();
  return agent.spanContext().traceId;
}

interface StoredNode {
  span_id: string;
  kind: string;
  children: StoredNode[];
}
interface StoredTrace {
  span_count: number;
  service: string;
  spans: StoredNode[];
}

async function readTrace(traceId: string): Promise<StoredTrace> {
  return eventually(
    async () => {
      const response = await fetch(`${baseUrl}/api/traces/${traceId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (response.status !== 200) return undefined;
      const answer = (await response.json()) as { data: StoredTrace };
      return answer.data.span_count === 3 ? answer.data : undefined;
    },
    20_000,
    `trace ${traceId} queryable`,
  );
}

const exporters: [string, () => SpanExporter][] = [
  [
    'protobuf',
    () =>
      new ProtobufExporter({
        url: `${baseUrl}/api/otlp/v1/traces`,
        headers: { Authorization: `Bearer ${key}` },
      }),
  ],
  [
    'protobuf with gzip',
    () =>
      new ProtobufExporter({
        url: `${baseUrl}/api/otlp/v1/traces`,
        headers: { Authorization: `Bearer ${key}` },
        compression: CompressionAlgorithm.GZIP,
      }),
  ],
  [
    'JSON',
    () =>
      new HttpJsonExporter({
        url: `${baseUrl}/api/otlp/v1/traces`,
        headers: { Authorization: `Bearer ${key}` },
      }),
  ],
  [
    'JSON with gzip',
    () =>
      new HttpJsonExporter({
        url: `${baseUrl}/api/otlp/v1/traces`,
        headers: { Authorization: `Bearer ${key}` },
        compression: CompressionAlgorithm.GZIP,
      }),
  ],
];

describe('the OpenTelemetry JS exporters', () => {
  it.each(exporters)(
    '%s: spans arrive, classified and read, through the query API',
    async (name, makeExporter) => {
      const service = `e2e-${name.replace(/\W+/g, '-')}`;
      const traceId = await sendAgentTurn(makeExporter(), service);
      const stored = await readTrace(traceId);
      expect(stored).toMatchObject({
        root_span_name: 'invoke_agent support',
        span_count: 3,
        input_tokens: 120,
        output_tokens: 30,
        session_id: `session-${service}`,
        user_id: 'ada',
        service,
        environment: 'e2e',
        models: ['gpt-4o'],
      });
      const agent = stored.spans[0]!;
      expect(agent.kind).toBe('agent');
      expect(agent.children.map((span) => span.kind).sort()).toEqual(['generation', 'tool']);

      const generation = agent.children.find((span) => span.kind === 'generation');
      const detail = await fetch(`${baseUrl}/api/traces/${traceId}/spans/${generation?.span_id}`, {
        headers: { authorization: `Bearer ${key}` },
      }).then(
        (response) =>
          response.json() as Promise<{
            data: { attributes: Record<string, unknown> } & Record<string, unknown>;
          }>,
      );
      expect(detail.data.input).toEqual({
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] }],
      });
      expect(JSON.stringify(detail.data.output)).toContain('My key is [REDACTED]');
      expect(detail.data.redacted_count).toBe(1);
      expect(detail.data.attributes['gen_ai.input.messages']).toBeUndefined();
    },
  );

  it('works from the standard environment variables alone (base endpoint, %20 header, gzip)', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${baseUrl}/api/otlp`,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${key}`,
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    try {
      const traceId = await sendAgentTurn(new ProtobufExporter(), 'e2e-env');
      expect((await readTrace(traceId)).service).toBe('e2e-env');
    } finally {
      process.env = saved;
    }
  });
});
