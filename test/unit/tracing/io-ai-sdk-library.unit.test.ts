import { embed, embedMany, generateText, stepCountIs, tool } from 'ai';
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OtlpTraceRequest } from '../../../domain/tracing/otlp.ts';
import type { StoredSpan } from '../../../domain/tracing/span.ts';
import { memoryTracing, parsed, sentSpans, sentString, storedSpans } from './instrumented-spans.ts';

// 001, Attributes read, rows AI SDK: spans made by the `ai` package itself (its telemetry, a mock
// model from `ai/test`), exported by the OTLP protobuf serializer and decoded by the endpoint.

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

async function run(): Promise<OtlpTraceRequest> {
  const tracing = memoryTracing();
  const telemetry = { isEnabled: true, tracer: tracing.tracer };
  const embedder = new MockEmbeddingModelV3({
    modelId: 'text-embedding-3-small',
    doEmbed: async ({ values }) => ({
      embeddings: values.map(() => [0.1, -0.2, 0.3]),
      usage: { tokens: 7 },
      warnings: [],
    }),
  });
  await embed({ model: embedder, value: 'sunny day at the beach', experimental_telemetry: telemetry });
  await embedMany({
    model: embedder,
    values: ['sunny day', 'rainy afternoon'],
    experimental_telemetry: telemetry,
  });
  const model = new MockLanguageModelV3({
    modelId: 'gpt-4o',
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call_r', toolName: 'weather', input: '{"city":"Rome"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'It is 24 °C in Rome.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
  await generateText({
    model,
    prompt: 'Weather in Rome?',
    tools: {
      weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ c: 24 }) }),
    },
    stopWhen: stepCountIs(2),
    experimental_telemetry: telemetry,
  });
  return tracing.exported();
}

let request: OtlpTraceRequest;
let stored: StoredSpan[];
beforeAll(async () => {
  request = await run();
  stored = storedSpans(request);
});

const named = (name: string): StoredSpan[] => stored.filter((span) => span.name === name);
const only = (name: string): StoredSpan => {
  const [span, ...others] = named(name);
  if (span === undefined || others.length > 0) throw new Error(`expected one span named ${name}`);
  return span;
};
const attributeKeys = (span: StoredSpan): string[] => Object.keys(parsed(span.attributes) ?? {});

describe('AI SDK embeddings, as the library sends them', () => {
  it('embed: the call to the model is a generation whose tokens are input tokens and whose input is the value', () => {
    const span = only('ai.embed.doEmbed');
    expect(span).toMatchObject({ kind: 'generation', model: 'text-embedding-3-small', inputTokens: 7 });
    expect(span.outputTokens).toBeNull();
    expect(parsed(span.input)).toEqual({ value: ['sunny day at the beach'] });
  });

  it('embed: the outer span reads ai.value, sent as JSON text', () => {
    const sent = sentSpans(request).find((span) => span.name === 'ai.embed');
    expect(sent && sentString(sent, 'ai.value')).toBe('"sunny day at the beach"');
    const span = only('ai.embed');
    expect(span).toMatchObject({ kind: 'agent', inputTokens: 7 });
    expect(parsed(span.input)).toEqual({ value: 'sunny day at the beach' });
    expect(attributeKeys(span)).not.toContain('ai.value');
  });

  it('embedMany: ai.values, a list of JSON texts, is the list of values', () => {
    const span = only('ai.embedMany');
    expect(span.inputTokens).toBe(14);
    expect(parsed(span.input)).toEqual({ value: ['sunny day', 'rainy afternoon'] });
    expect(named('ai.embedMany.doEmbed').map((call) => parsed(call.input))).toEqual([
      { value: ['sunny day'] },
      { value: ['rainy afternoon'] },
    ]);
  });

  it('keeps the vectors as attributes, not as output', () => {
    for (const span of [only('ai.embed'), ...named('ai.embed.doEmbed'), only('ai.embedMany')]) {
      expect(span.output).toBeNull();
      expect(attributeKeys(span)).toContain(span.name === 'ai.embed' ? 'ai.embedding' : 'ai.embeddings');
      expect(attributeKeys(span)).not.toContain('ai.values');
    }
  });
});

describe('AI SDK tool results, as the library sends them', () => {
  it('ai.toolCall.result is the value the tool returned', () => {
    const span = only('ai.toolCall');
    expect(span.kind).toBe('tool');
    expect([parsed(span.input), parsed(span.output)]).toEqual([
      { value: { city: 'Rome' } },
      { value: { c: 24 } },
    ]);
  });

  it('a tool result in ai.prompt.messages is stored as its value, not the { type: "json" } wrapper', () => {
    const [, second] = sentSpans(request).filter((span) => span.name === 'ai.generateText.doGenerate');
    expect(second && sentString(second, 'ai.prompt.messages')).toContain(
      '"output":{"type":"json","value":{"c":24}}',
    );
    const [, answer] = named('ai.generateText.doGenerate');
    expect(parsed(answer?.input ?? null)).toEqual({
      messages: [
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Rome?' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_r', name: 'weather', arguments: { city: 'Rome' } }],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_r', response: { c: 24 } }] },
      ],
    });
  });
});
