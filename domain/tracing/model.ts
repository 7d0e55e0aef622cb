// Model and token counts, from the "Model and tokens" table of 001 (Attributes read): the first
// attribute of each list that the span has with a usable value. After each spec list come the
// attributes embedding spans use instead, read only when the list has nothing.

import { findAttribute, firstOf, readString } from './attributes.ts';
import type { AnyValue, KeyValue } from './otlp.ts';

export const modelAttributes = [
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.model_name',
  'ai.response.model',
  'ai.model.id',
] as const;

export const inputTokenAttributes = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.token_count.prompt',
  'ai.usage.inputTokens',
  'ai.usage.promptTokens',
] as const;

export const outputTokenAttributes = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.token_count.completion',
  'ai.usage.outputTokens',
  'ai.usage.completionTokens',
] as const;

/**
 * Input tokens read from the provider's cache, a part of the input count: the GenAI conventions'
 * name, then OpenLLMetry's before its semconv-ai 0.5, Pydantic AI's `details` name (sent beside the
 * conventions'), OpenInference's, and the AI SDK's (6.0.119 on sends both, earlier only the last).
 */
export const cachedInputTokenAttributes = [
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'gen_ai.usage.details.cache_read_tokens',
  'llm.token_count.prompt_details.cache_read',
  'ai.usage.inputTokenDetails.cacheReadTokens',
  'ai.usage.cachedInputTokens',
] as const;

/**
 * Output tokens spent on reasoning, a part of the output count: the GenAI conventions' name, then
 * OpenLLMetry's (semconv-ai 0.5 on, then before), Pydantic AI's, OpenInference's, the AI SDK's
 * (as above).
 */
export const reasoningTokenAttributes = [
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.reasoning_tokens',
  'llm.usage.reasoning_tokens',
  'gen_ai.usage.details.reasoning_tokens',
  'llm.token_count.completion_details.reasoning',
  'ai.usage.outputTokenDetails.reasoningTokens',
  'ai.usage.reasoningTokens',
] as const;

/** OpenInference names an embedding span's model here rather than in `llm.model_name`. */
export const embeddingModelAttributes = ['embedding.model_name'] as const;

/** The AI SDK's `embed` and `embedMany` count their tokens here; an embedding's tokens are all input. */
export const embeddingInputTokenAttributes = ['ai.usage.tokens'] as const;

const modelRead = [...modelAttributes, ...embeddingModelAttributes];
const inputTokensRead = [...inputTokenAttributes, ...embeddingInputTokenAttributes];

export function readModel(attributes: readonly KeyValue[]): string | null {
  return firstOf(attributes, modelRead, readString) ?? null;
}

export function readInputTokens(attributes: readonly KeyValue[]): number | null {
  return firstOf(attributes, inputTokensRead, readTokenCount) ?? null;
}

export function readOutputTokens(attributes: readonly KeyValue[]): number | null {
  return firstOf(attributes, outputTokenAttributes, readTokenCount) ?? null;
}

export function readCachedInputTokens(attributes: readonly KeyValue[]): number | null {
  return firstOf(attributes, cachedInputTokenAttributes, readTokenCount) ?? null;
}

export function readReasoningTokens(attributes: readonly KeyValue[]): number | null {
  return firstOf(attributes, reasoningTokenAttributes, readTokenCount) ?? null;
}

/**
 * A token count: an int, an integral double or a string of digits, zero or more and exact as a
 * JSON number. Anything else (negative, fractional, too large, another type) counts as absent,
 * so the next attribute in the list is tried.
 */
export function readTokenCount(attributes: readonly KeyValue[], key: string): number | undefined {
  const value = findAttribute(attributes, key);
  const count = value === undefined ? Number.NaN : asNumber(value);
  return Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

function asNumber(value: AnyValue): number {
  switch (value.kind) {
    case 'int':
      return Number(value.value);
    case 'double':
      return value.value;
    case 'string':
      return /^\d+$/.test(value.value) ? Number(value.value) : Number.NaN;
    default:
      return Number.NaN;
  }
}
