import { describe, expect, it } from 'vitest';
import { readInputOutput } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, keys, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Input and output", rows GenAI tool calls and Traceloop: stored as `{ value }`,
// parsed as JSON when it is JSON.
describe.each([
  ['GenAI tool calls', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'],
  ['Traceloop', 'traceloop.entity.input', 'traceloop.entity.output'],
])('%s', (_, inputKey, outputKey) => {
  it.each<[string, Plain, JsonValue]>([
    ['JSON object text', '{"city":"Paris","units":"metric"}', { city: 'Paris', units: 'metric' }],
    ['JSON array text', '[1,2]', [1, 2]],
    ['JSON number text', '42', 42],
    ['plain text', 'rainy, 57°F', 'rainy, 57°F'],
    ['malformed JSON', '{"city":', '{"city":'],
    ['an empty string', '', ''],
    ['a structured value', { city: 'Paris' }, { city: 'Paris' }],
    ['an int', 7, 7],
  ])('stores %s as a value', (_, sent, stored) => {
    const read = readInputOutput({ attributes: attrs({ [inputKey]: sent, [outputKey]: sent }), events: [] });
    expect(read.input).toEqual({ value: stored });
    expect(read.output).toEqual({ value: stored });
    expect(read.attributes).toEqual([]);
  });

  it('reads input and output independently', () => {
    const read = readInputOutput({ attributes: attrs({ [outputKey]: 'done', other: 1 }), events: [] });
    expect(read.input).toBeNull();
    expect(read.output).toEqual({ value: 'done' });
    expect(keys(read.attributes)).toEqual(['other']);
  });
});

it('reads a realistic GenAI execute_tool span', () => {
  const read = readInputOutput({
    attributes: attrs({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_mszuSIzqtI65i1wAUOE8w5H4',
      'gen_ai.tool.call.arguments': '{"location":"San Francisco?"}',
      'gen_ai.tool.call.result': '{"temperature_range":{"high":75,"low":60},"conditions":"sunny"}',
    }),
    events: [],
  });
  expect(read.input).toEqual({ value: { location: 'San Francisco?' } });
  expect(read.output).toEqual({ value: { temperature_range: { high: 75, low: 60 }, conditions: 'sunny' } });
  expect(keys(read.attributes)).toEqual(['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id']);
});

it('reads a realistic Traceloop workflow span', () => {
  const read = readInputOutput({
    attributes: attrs({
      'traceloop.span.kind': 'workflow',
      'traceloop.entity.name': 'joke_generator',
      'traceloop.entity.input': '{"args": [], "kwargs": {"topic": "otters"}}',
      'traceloop.entity.output': '"Why did the otter cross the river?"',
      'traceloop.association.properties.user_id': 'u-9',
    }),
    events: [],
  });
  expect(read.input).toEqual({ value: { args: [], kwargs: { topic: 'otters' } } });
  expect(read.output).toEqual({ value: 'Why did the otter cross the river?' });
  expect(keys(read.attributes)).toEqual([
    'traceloop.span.kind',
    'traceloop.entity.name',
    'traceloop.association.properties.user_id',
  ]);
});
