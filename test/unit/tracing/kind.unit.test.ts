import { describe, expect, it } from 'vitest';
import { readKind } from '../../../domain/tracing/kind.ts';
import type { SpanKind } from '../../../domain/tracing/span.ts';
import { attrs, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Kind": every value of every row.
describe('readKind: the Kind table', () => {
  it.each<[string, Plain, SpanKind]>([
    ['openinference.span.kind', 'LLM', 'generation'],
    ['openinference.span.kind', 'EMBEDDING', 'generation'],
    ['openinference.span.kind', 'TOOL', 'tool'],
    ['openinference.span.kind', 'AGENT', 'agent'],
    ['openinference.span.kind', 'CHAIN', 'agent'],
    ['openinference.span.kind', 'RETRIEVER', 'retrieval'],
    ['openinference.span.kind', 'RERANKER', 'retrieval'],
    ['openinference.span.kind', 'GUARDRAIL', 'span'],
    ['openinference.span.kind', 'llm', 'span'],
    ['gen_ai.operation.name', 'chat', 'generation'],
    ['gen_ai.operation.name', 'text_completion', 'generation'],
    ['gen_ai.operation.name', 'generate_content', 'generation'],
    ['gen_ai.operation.name', 'embeddings', 'generation'],
    ['gen_ai.operation.name', 'execute_tool', 'tool'],
    ['gen_ai.operation.name', 'invoke_agent', 'agent'],
    ['gen_ai.operation.name', 'create_agent', 'agent'],
    ['gen_ai.operation.name', 'retrieval', 'span'],
    ['ai.operationId', 'ai.generateText.doGenerate', 'generation'],
    ['ai.operationId', 'ai.streamText.doStream', 'generation'],
    ['ai.operationId', 'ai.embedMany.doEmbed', 'generation'],
    ['ai.operationId', 'ai.toolCall', 'tool'],
    ['ai.operationId', 'ai.generateText', 'agent'],
    ['ai.operationId', 'ai.streamObject', 'agent'],
    ['ai.operationId', 'ai.toolCall.extra', 'agent'],
    ['ai.operationId', 'doGenerate', 'agent'],
    ['llm.request.type', 'chat', 'generation'],
    ['llm.request.type', 'completion', 'generation'],
    ['llm.request.type', 'embedding', 'generation'],
    ['llm.request.type', 'rerank', 'span'],
    ['traceloop.span.kind', 'tool', 'tool'],
    ['traceloop.span.kind', 'agent', 'agent'],
    ['traceloop.span.kind', 'workflow', 'agent'],
    ['traceloop.span.kind', 'task', 'span'],
    ['http.method', 'GET', 'span'],
  ])('%s = %s is %s', (key, value, kind) => {
    expect(readKind(attrs({ [key]: value }))).toBe(kind);
  });

  it('is span for a span without attributes', () => {
    expect(readKind([])).toBe('span');
  });
});

describe('readKind: the first attribute of the list that the span has decides', () => {
  it.each<[string, { [key: string]: Plain }, SpanKind]>([
    [
      'OpenInference before GenAI',
      { 'gen_ai.operation.name': 'chat', 'openinference.span.kind': 'TOOL' },
      'tool',
    ],
    [
      'GenAI before AI SDK',
      { 'ai.operationId': 'ai.toolCall', 'gen_ai.operation.name': 'chat' },
      'generation',
    ],
    [
      'AI SDK before llm.request.type',
      { 'llm.request.type': 'chat', 'ai.operationId': 'ai.generateText' },
      'agent',
    ],
    [
      'llm.request.type before Traceloop',
      { 'traceloop.span.kind': 'tool', 'llm.request.type': 'chat' },
      'generation',
    ],
    [
      'an unmapped value of the first attribute is span, later attributes are not tried',
      { 'openinference.span.kind': 'GUARDRAIL', 'gen_ai.operation.name': 'chat' },
      'span',
    ],
    [
      'an unmapped llm.request.type does not fall through to Traceloop',
      { 'llm.request.type': 'rerank', 'traceloop.span.kind': 'tool' },
      'span',
    ],
    [
      'an empty string does not count as having the attribute',
      { 'openinference.span.kind': '', 'gen_ai.operation.name': 'execute_tool' },
      'tool',
    ],
    [
      'a value that is not a string does not count as having the attribute',
      { 'gen_ai.operation.name': 3, 'traceloop.span.kind': 'workflow' },
      'agent',
    ],
  ])('%s', (_, values, kind) => {
    expect(readKind(attrs(values))).toBe(kind);
  });
});
