import { describe, expect, it } from 'vitest';
import {
  embeddingInputTokenAttributes,
  embeddingModelAttributes,
  inputTokenAttributes,
  modelAttributes,
  outputTokenAttributes,
  readInputTokens,
  readModel,
  readOutputTokens,
} from '../../../domain/tracing/model.ts';
import type { AnyValue, KeyValue } from '../../../domain/tracing/otlp.ts';
import { attrs, double, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Model and tokens": each list in order.
// After the spec's lists, what embedding spans send instead.
const lists = [
  ['model', [...modelAttributes, ...embeddingModelAttributes], readModel, ['gpt-4o-2024-08-06', 'gpt-4o']],
  ['input tokens', [...inputTokenAttributes, ...embeddingInputTokenAttributes], readInputTokens, [11, 22]],
  ['output tokens', outputTokenAttributes, readOutputTokens, [33, 44]],
] as const;

describe.each(lists)('%s', (_, list, read, [first, second]) => {
  it.each(list.map((key, index) => [key, index]))('reads %s alone', (key) => {
    expect(read(attrs({ [key]: first }))).toBe(first);
  });

  it.each(list.slice(0, -1).map((key, index) => [key, list[index + 1]!]))(
    'prefers %s to %s',
    (earlier, later) => {
      expect(read(attrs({ [later]: second, [earlier]: first }))).toBe(first);
    },
  );

  it('is null when no attribute of the list is there', () => {
    expect(read(attrs({ 'other.attribute': first }))).toBeNull();
  });
});

it('matches the table of the spec, in order', () => {
  expect(modelAttributes).toEqual([
    'gen_ai.response.model',
    'gen_ai.request.model',
    'llm.model_name',
    'ai.response.model',
    'ai.model.id',
  ]);
  expect(inputTokenAttributes).toEqual([
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'ai.usage.inputTokens',
    'ai.usage.promptTokens',
  ]);
  expect(outputTokenAttributes).toEqual([
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'ai.usage.outputTokens',
    'ai.usage.completionTokens',
  ]);
});

describe('readModel: values that do not count', () => {
  it.each<[string, Plain]>([
    ['an empty string', ''],
    ['a number', 4],
    ['null', null],
  ])('skips %s and uses the next attribute', (_, value) => {
    expect(readModel(attrs({ 'gen_ai.response.model': value, 'gen_ai.request.model': 'gpt-4o' }))).toBe(
      'gpt-4o',
    );
  });
});

describe('token counts', () => {
  const withFirst = (value: AnyValue): KeyValue[] => [
    { key: 'gen_ai.usage.input_tokens', value },
    ...attrs({ 'ai.usage.promptTokens': 5 }),
  ];

  it.each<[string, AnyValue, number]>([
    ['an int', { kind: 'int', value: 120n }, 120],
    ['zero', { kind: 'int', value: 0n }, 0],
    [
      'the largest safe int',
      { kind: 'int', value: BigInt(Number.MAX_SAFE_INTEGER) },
      Number.MAX_SAFE_INTEGER,
    ],
    ['an integral double', double(120), 120],
    ['a string of digits', { kind: 'string', value: '120' }, 120],
    ['a string of digits with leading zeros', { kind: 'string', value: '007' }, 7],
  ])('accepts %s', (_, value, expected) => {
    expect(readInputTokens(withFirst(value))).toBe(expected);
  });

  it.each<[string, AnyValue]>([
    ['a negative int', { kind: 'int', value: -1n }],
    ['one past the largest safe int', { kind: 'int', value: BigInt(Number.MAX_SAFE_INTEGER) + 1n }],
    ['a fractional double', double(1.5)],
    ['NaN', double(Number.NaN)],
    ['a negative double', double(-3)],
    ['an empty string', { kind: 'string', value: '' }],
    ['a decimal string', { kind: 'string', value: '1.5' }],
    ['a signed string', { kind: 'string', value: '+12' }],
    ['a string with spaces', { kind: 'string', value: ' 12' }],
    ['a string of too many digits', { kind: 'string', value: '9007199254740992' }],
    ['a bool', { kind: 'bool', value: true }],
    ['an array', { kind: 'array', values: [{ kind: 'int', value: 1n }] }],
  ])('treats %s as absent and reads the next attribute', (_, value) => {
    expect(readInputTokens(withFirst(value))).toBe(5);
  });

  it('reads output tokens from a realistic AI SDK generation span', () => {
    const attributes = attrs({
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'claude-sonnet-4',
      'ai.response.model': 'claude-sonnet-4-20250514',
      'ai.usage.promptTokens': 812,
      'ai.usage.completionTokens': 96,
      'gen_ai.usage.input_tokens': 812,
      'gen_ai.usage.output_tokens': 96,
    });
    expect([readModel(attributes), readInputTokens(attributes), readOutputTokens(attributes)]).toEqual([
      'claude-sonnet-4-20250514',
      812,
      96,
    ]);
  });
});
