import { describe, expect, it } from 'vitest';
import { normalizeSpan } from '../../../domain/tracing/normalize.ts';
import type { OtlpScope } from '../../../domain/tracing/otlp.ts';
import { storedSpanBytes } from '../../../domain/tracing/truncation.ts';
import { attrs, event, otlpSpan } from './reading-fixtures.ts';

// 001: Stored span, Attributes read, Limits; the whole normalization of one span.
const resource = attrs({
  'service.name': 'support-bot',
  'service.version': '1.4.2',
  'deployment.environment.name': 'production',
  'telemetry.sdk.language': 'nodejs',
});
const scope: OtlpScope = { name: '@opentelemetry/instrumentation-openai', version: '0.3.0', attributes: [] };

const inputMessages = [
  { role: 'user', parts: [{ type: 'text', content: 'Where is my order 1042?' }] },
  {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'call_1', name: 'find_order', arguments: { id: 1042 } }],
  },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { status: 'shipped' } }] },
];
const outputMessages = [
  { role: 'assistant', parts: [{ type: 'text', content: 'Your order has shipped.' }], finish_reason: 'stop' },
];

const chatSpan = otlpSpan({
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  parentSpanId: '53995c3f42cd8ad8',
  name: 'chat gpt-4o',
  kind: 3,
  startTimeUnixNano: 1_735_689_600_000_000_000n,
  endTimeUnixNano: 1_735_689_601_250_000_000n,
  status: { code: 2, message: 'rate limited once, retried' },
  attributes: attrs({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.usage.input_tokens': 1250,
    'gen_ai.usage.output_tokens': 48,
    'gen_ai.conversation.id': 'conv-77',
    'enduser.id': 'customer-12',
    'gen_ai.request.temperature': 0.2,
    'gen_ai.system_instructions': '[{"type":"text","content":"You are a support agent."}]',
    'gen_ai.input.messages': JSON.stringify(inputMessages),
    'gen_ai.output.messages': JSON.stringify(outputMessages),
  }),
  events: [event('gen_ai.choice', { index: 0 }, 1_735_689_601_000_000_000n)],
  links: [
    {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceState: 'congo=t61rcWkgMzE',
      attributes: attrs({ 'link.reason': 'retry' }),
      droppedAttributesCount: 0,
    },
  ],
});

describe('normalizeSpan', () => {
  it('reads a realistic GenAI chat span into the stored span', () => {
    const { sizeBytes, ...stored } = normalizeSpan(chatSpan, resource, scope);
    expect(sizeBytes).toBe(storedSpanBytes(stored));
    expect(stored).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      parentSpanId: '53995c3f42cd8ad8',
      name: 'chat gpt-4o',
      kind: 'generation',
      otelKind: 3,
      startTimeUnixNano: 1_735_689_600_000_000_000n,
      endTimeUnixNano: 1_735_689_601_250_000_000n,
      statusCode: 2,
      statusMessage: 'rate limited once, retried',
      model: 'gpt-4o-2024-08-06',
      inputTokens: 1250,
      outputTokens: 48,
      cachedInputTokens: null,
      reasoningTokens: null,
      costNanoUsd: null,
      input: JSON.stringify({
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'You are a support agent.' }] },
          ...inputMessages,
        ],
      }),
      output: JSON.stringify({ messages: outputMessages }),
      inputTruncated: false,
      outputTruncated: false,
      sessionId: 'conv-77',
      userId: 'customer-12',
      serviceName: 'support-bot',
      environment: 'production',
      attributes: JSON.stringify({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 1250,
        'gen_ai.usage.output_tokens': 48,
        'gen_ai.conversation.id': 'conv-77',
        'enduser.id': 'customer-12',
        'gen_ai.request.temperature': 0.2,
      }),
      events: JSON.stringify([
        { name: 'gen_ai.choice', time_unix_nano: '1735689601000000000', attributes: { index: 0 } },
      ]),
      links: JSON.stringify([
        {
          trace_id: '0af7651916cd43dd8448eb211c80319c',
          span_id: 'b7ad6b7169203331',
          trace_state: 'congo=t61rcWkgMzE',
          attributes: { 'link.reason': 'retry' },
        },
      ]),
      resourceAttributes: JSON.stringify({
        'service.name': 'support-bot',
        'service.version': '1.4.2',
        'deployment.environment.name': 'production',
        'telemetry.sdk.language': 'nodejs',
      }),
      scopeName: '@opentelemetry/instrumentation-openai',
      scopeVersion: '0.3.0',
      redactedCount: 0,
    });
  });

  it('stores a span of no convention with null reading fields', () => {
    const stored = normalizeSpan(otlpSpan({ attributes: attrs({ 'http.route': '/orders' }) }), [], scope);
    expect(stored).toMatchObject({
      kind: 'span',
      model: null,
      inputTokens: null,
      outputTokens: null,
      input: null,
      output: null,
      inputTruncated: false,
      outputTruncated: false,
      sessionId: null,
      userId: null,
      serviceName: null,
      environment: null,
      attributes: '{"http.route":"/orders"}',
      events: '[]',
      links: '[]',
      resourceAttributes: '{}',
    });
  });
});

describe('normalizeSpan: credentials and limits', () => {
  const secret = 'sk-proj-Xq7RmT2vK9pL4nW8sB3dF6hJ1cY5gA0eZuQiOoPaSdFgHjKl';

  it('removes credentials from input, attributes, events and resource, and counts them', () => {
    const stored = normalizeSpan(
      otlpSpan({
        attributes: attrs({
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: `my key is ${secret}` }] },
          ]),
          'http.request.header.authorization': `Bearer ${secret}`,
        }),
        events: [event('exception', { 'exception.message': `401 for key ${secret}` })],
      }),
      attrs({ 'service.name': 'support-bot', 'openai.api_key': secret }),
      scope,
    );
    expect(
      JSON.stringify([stored.input, stored.attributes, stored.events, stored.resourceAttributes]),
    ).not.toContain(secret.slice(0, 16));
    expect(stored.redactedCount).toBe(4);
    expect(stored.serviceName).toBe('support-bot');
  });

  it('redacts before cutting, so a cut through a credential leaves none of it', () => {
    // The credential sits where the 128 KiB cut of the input falls.
    const before = 'a'.repeat(128 * 1024 - 60);
    const content = `${before} ${secret} ${'b'.repeat(4096)}`;
    const stored = normalizeSpan(otlpSpan({ attributes: attrs({ 'input.value': content }) }), [], scope);
    expect(stored.inputTruncated).toBe(true);
    expect(Buffer.byteLength(stored.input ?? '')).toBeLessThanOrEqual(128 * 1024);
    expect(stored.input).not.toContain(secret.slice(0, 12));
    expect(stored.redactedCount).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['exactly 128 KiB as JSON is kept whole', 0, false],
    ['one byte more is cut', 1, true],
  ])('input: %s', (_, extra, truncated) => {
    const overhead = JSON.stringify({ value: '' }).length;
    const value = 'x'.repeat(128 * 1024 - overhead + extra);
    const stored = normalizeSpan(otlpSpan({ attributes: attrs({ 'output.value': value }) }), [], scope);
    expect(stored.outputTruncated).toBe(truncated);
    expect(Buffer.byteLength(stored.output ?? '')).toBeLessThanOrEqual(128 * 1024);
    if (!truncated) expect(stored.output).toBe(JSON.stringify({ value }));
  });
});

describe('a generation priced when received', () => {
  const gpt4o = (model: string) => (model === 'gpt-4o-2024-08-06' ? { input: 2.5, output: 10 } : undefined);

  it('costs its tokens at its model’s price', () => {
    // 1,250 input tokens at 2.5 USD and 48 output tokens at 10 USD per million.
    expect(normalizeSpan(chatSpan, [], scope, gpt4o).costNanoUsd).toBe(3_125_000 + 480_000);
  });

  it('has no cost when its model has no price, or without prices', () => {
    expect(normalizeSpan(chatSpan, [], scope, () => undefined).costNanoUsd).toBeNull();
    expect(normalizeSpan(chatSpan, [], scope).costNanoUsd).toBeNull();
  });

  it('prices no other kind, whatever tokens it carries', () => {
    const agent = otlpSpan({
      attributes: attrs({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.request.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 10,
      }),
    });
    const stored = normalizeSpan(agent, [], scope, gpt4o);
    expect(stored.kind).toBe('agent');
    expect(stored.costNanoUsd).toBeNull();
  });
});
