import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { findAttribute } from '../../../domain/tracing/attributes.ts';
import {
  cachedInputTokenAttributes,
  readCachedInputTokens,
  readInputTokens,
  readOutputTokens,
  readReasoningTokens,
  reasoningTokenAttributes,
} from '../../../domain/tracing/model.ts';
import type { KeyValue, OtlpSpan } from '../../../domain/tracing/otlp.ts';
import { memoryTracing, recordedRequest, sentSpans } from './instrumented-spans.ts';
import { attrs } from './reading-fixtures.ts';

// Issue 50, item 1: the cached-input and reasoning counts a generation's cost reads, each a part of
// the input or output count. Spans come from a recording (test/fixtures/instrumentations/), from
// the AI SDK run here, or, where nothing was recorded, are written from the library's own source.

const readings = [
  ['cached input tokens', cachedInputTokenAttributes, readCachedInputTokens],
  ['reasoning tokens', reasoningTokenAttributes, readReasoningTokens],
] as const;

describe.each(readings)('%s', (_, list, read) => {
  it.each(list.map((key) => [key]))('reads %s alone', (key) => {
    expect(read(attrs({ [key]: 64 }))).toBe(64);
  });

  it.each(list.slice(0, -1).map((key, index) => [key, list[index + 1]!]))(
    'prefers %s to %s',
    (earlier, later) => {
      expect(read(attrs({ [later]: 2, [earlier]: 1 }))).toBe(1);
    },
  );

  it('is null when no attribute of the list is there, and skips a count that is not one', () => {
    expect(read(attrs({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 }))).toBeNull();
    expect(read(attrs({ [list[0]]: -1, [list[1]]: '12' }))).toBe(12);
  });
});

/** The four counts a span's cost reads. */
const counts = (attributes: readonly KeyValue[]) => ({
  input: readInputTokens(attributes),
  cached: readCachedInputTokens(attributes),
  output: readOutputTokens(attributes),
  reasoning: readReasoningTokens(attributes),
});

describe('spans recorded from OpenLLMetry 0.52.6 and OpenInference 0.1.66', () => {
  const onlySpan = (name: string): OtlpSpan => {
    const [span] = sentSpans(recordedRequest(name));
    if (span === undefined) throw new Error(`${name} holds no span`);
    return span;
  };

  it("OpenLLMetry's Anthropic span: cache reads in its pre-0.5 name, zero when nothing was cached", () => {
    const { attributes } = onlySpan('openllmetry-anthropic-tool-result');
    expect(findAttribute(attributes, 'gen_ai.usage.cache_read_input_tokens')).toBeDefined();
    expect(counts(attributes)).toEqual({ input: 412, cached: 0, output: 11, reasoning: null });
  });

  it("OpenLLMetry's OpenAI span: reasoning in llm.usage.reasoning_tokens, zero for gpt-4o", () => {
    const { attributes } = onlySpan('openllmetry-openai-multipart-content');
    expect(findAttribute(attributes, 'llm.usage.reasoning_tokens')).toBeDefined();
    expect(counts(attributes)).toEqual({ input: 812, cached: null, output: 9, reasoning: 0 });
  });

  it('OpenInference leaves both out when the response has no details', () => {
    const { attributes } = onlySpan('openinference-openai-pasted-key');
    expect(counts(attributes)).toEqual({ input: 812, cached: null, output: 9, reasoning: null });
  });
});

describe('the AI SDK, run here with a mock model', () => {
  async function generationSpans(): Promise<OtlpSpan[]> {
    const tracing = memoryTracing();
    const model = new MockLanguageModelV3({
      modelId: 'o4-mini',
      doGenerate: {
        content: [{ type: 'text', text: 'Paris.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        // As @ai-sdk/openai reports a response: the totals with their parts inside.
        usage: {
          inputTokens: { total: 1200, noCache: 200, cacheRead: 1000, cacheWrite: undefined },
          outputTokens: { total: 90, text: 26, reasoning: 64 },
        },
        warnings: [],
      },
    });
    await generateText({
      model,
      prompt: 'Capital of France?',
      experimental_telemetry: { isEnabled: true, tracer: tracing.tracer },
    });
    return sentSpans(tracing.exported());
  }

  it('reads the call and the outer span alike, from both of its names for each part', async () => {
    const spans = await generationSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(['ai.generateText', 'ai.generateText.doGenerate']);
    for (const { attributes } of spans) {
      for (const key of ['ai.usage.cachedInputTokens', 'ai.usage.inputTokenDetails.cacheReadTokens']) {
        expect(findAttribute(attributes, key)).toBeDefined();
      }
      expect(counts(attributes)).toEqual({ input: 1200, cached: 1000, output: 90, reasoning: 64 });
    }
  });
});

// Written from each library's source, where no recording holds these counts.
describe("spans as the libraries' source writes them", () => {
  it('OpenTelemetry GenAI utilities (Python contrib): output already holds the thinking tokens', () => {
    // opentelemetry-util-genai _inference_invocation.py: output_tokens = output + thinking.
    const attributes = attrs({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 5215,
      'gen_ai.usage.cache_read.input_tokens': 5120,
      'gen_ai.usage.output_tokens': 730,
      'gen_ai.usage.reasoning.output_tokens': 700,
    });
    expect(counts(attributes)).toEqual({ input: 5215, cached: 5120, output: 730, reasoning: 700 });
  });

  it('OpenLLMetry after semconv-ai 0.5: the conventions name for cache reads, its own for reasoning', () => {
    // opentelemetry-instrumentation-openai chat_wrappers.py and shared/__init__.py.
    const attributes = attrs({
      'gen_ai.usage.input_tokens': 2048,
      'gen_ai.usage.cache_read.input_tokens': 1024,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.reasoning_tokens': 256,
      'llm.usage.total_tokens': 2348,
    });
    expect(counts(attributes)).toEqual({ input: 2048, cached: 1024, output: 300, reasoning: 256 });
  });

  it('OpenInference (OpenAI): prompt and completion details', () => {
    // openinference-instrumentation-openai _response_attributes_extractor.py.
    const attributes = attrs({
      'llm.token_count.prompt': 1500,
      'llm.token_count.prompt_details.cache_read': 1280,
      'llm.token_count.completion': 482,
      'llm.token_count.completion_details.reasoning': 448,
      'llm.token_count.total': 1982,
    });
    expect(counts(attributes)).toEqual({ input: 1500, cached: 1280, output: 482, reasoning: 448 });
  });

  it('OpenInference (Anthropic): the prompt count already adds the cache reads and writes', () => {
    // openinference-instrumentation-anthropic _utils.py: prompt = input + cache writes + cache reads.
    const attributes = attrs({
      'llm.token_count.prompt': 4021,
      'llm.token_count.prompt_details.cache_read': 3900,
      'llm.token_count.prompt_details.cache_write': 100,
      'llm.token_count.completion': 57,
    });
    expect(counts(attributes)).toEqual({ input: 4021, cached: 3900, output: 57, reasoning: null });
  });

  it('Pydantic AI: the conventions name and its details name for the same cache reads', () => {
    // pydantic_ai usage.py opentelemetry_attributes; reasoning_tokens from OpenAI's output details.
    const attributes = attrs({
      'gen_ai.usage.input_tokens': 2065,
      'gen_ai.usage.cache_read.input_tokens': 2048,
      'gen_ai.usage.details.cache_read_tokens': 2048,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.details.reasoning_tokens': 30,
    });
    expect(counts(attributes)).toEqual({ input: 2065, cached: 2048, output: 40, reasoning: 30 });
  });
});
