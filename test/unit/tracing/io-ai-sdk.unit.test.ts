import { describe, expect, it } from 'vitest';
import { readInputOutput } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, keys, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Input and output", row AI SDK (Vercel), as v4 and v5 send it.
const v4Messages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Rome?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', toolCallId: 'call_r', toolName: 'weather', args: { city: 'Rome' } },
    ],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call_r', toolName: 'weather', result: { c: 24 } }],
  },
];
const v5Messages = [
  { role: 'user', content: [{ type: 'text', text: 'Weather in Rome?' }] },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'call_r', toolName: 'weather', input: { city: 'Rome' } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_r',
        toolName: 'weather',
        output: { type: 'json', value: { c: 24 } },
      },
    ],
  },
];
const storedV4: JsonValue[] = [
  { role: 'system', parts: [{ type: 'text', content: 'You are a helpful assistant.' }] },
  { role: 'user', parts: [{ type: 'text', content: 'Weather in Rome?' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', content: 'Let me check.' },
      { type: 'tool_call', id: 'call_r', name: 'weather', arguments: { city: 'Rome' } },
    ],
  },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_r', response: { c: 24 } }] },
];

describe('AI SDK input', () => {
  it.each<[string, { [key: string]: Plain }, JsonValue]>([
    ['v4 ai.prompt.messages', { 'ai.prompt.messages': JSON.stringify(v4Messages) }, { messages: storedV4 }],
    [
      'v5 ai.prompt.messages (input, output)',
      { 'ai.prompt.messages': JSON.stringify(v5Messages) },
      {
        messages: [
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Rome?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_r', name: 'weather', arguments: { city: 'Rome' } }],
          },
          {
            role: 'tool',
            parts: [{ type: 'tool_call_response', id: 'call_r', response: { c: 24 } }],
          },
        ],
      },
    ],
    [
      'image and file parts dropped',
      {
        'ai.prompt.messages': JSON.stringify([
          {
            role: 'user',
            content: [
              { type: 'image', image: 'https://example.com/cat.png' },
              { type: 'text', text: 'What is it?' },
            ],
          },
        ]),
      },
      { messages: [{ role: 'user', parts: [{ type: 'text', content: 'What is it?' }] }] },
    ],
    [
      'ai.prompt with system and a text prompt',
      { 'ai.prompt': '{"system":"Be terse.","prompt":"Write a haiku about otters."}' },
      {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'Be terse.' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Write a haiku about otters.' }] },
        ],
      },
    ],
    [
      'ai.prompt with messages',
      { 'ai.prompt': JSON.stringify({ messages: v4Messages.slice(1, 2) }) },
      { messages: storedV4.slice(1, 2) },
    ],
    [
      'ai.prompt.messages preferred to ai.prompt',
      { 'ai.prompt': '{"prompt":"outer"}', 'ai.prompt.messages': '[{"role":"user","content":"inner"}]' },
      { messages: [{ role: 'user', parts: [{ type: 'text', content: 'inner' }] }] },
    ],
    ['ai.prompt of another shape as a value', { 'ai.prompt': '{"input":"x"}' }, { value: { input: 'x' } }],
    [
      'malformed ai.prompt.messages as the string',
      { 'ai.prompt.messages': '[{"role":' },
      { value: '[{"role":' },
    ],
    ['ai.toolCall.args', { 'ai.toolCall.args': '{"city":"Rome"}' }, { value: { city: 'Rome' } }],
    ['embed: ai.value, a JSON text', { 'ai.value': '"sunny day"' }, { value: 'sunny day' }],
    [
      'embedMany and doEmbed: ai.values, a list of JSON texts',
      { 'ai.values': ['"sunny day"', '"rainy afternoon"'] },
      { value: ['sunny day', 'rainy afternoon'] },
    ],
  ])('%s', (_, values, input) => {
    expect(readInputOutput({ attributes: attrs(values), events: [] }).input).toEqual(input);
  });
});

describe('AI SDK tool results in messages (v5+ wraps the output by kind)', () => {
  const response = (output: Plain) =>
    readInputOutput({
      attributes: attrs({
        'ai.prompt.messages': JSON.stringify([
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output }] },
        ]),
      }),
      events: [],
    }).input;
  it.each<[string, Plain, JsonValue]>([
    ['json', { type: 'json', value: { c: 24 } }, { c: 24 }],
    ['text', { type: 'text', value: 'sunny' }, 'sunny'],
    ['error-json', { type: 'error-json', value: { error: 'timeout' } }, { error: 'timeout' }],
    ['error-text', { type: 'error-text', value: 'timeout' }, 'timeout'],
    [
      'content, kept whole',
      { type: 'content', value: [{ type: 'text', text: 'a' }] },
      { type: 'content', value: [{ type: 'text', text: 'a' }] },
    ],
  ])('%s', (_, output, stored) => {
    expect(response(output)).toEqual({
      messages: [{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c', response: stored }] }],
    });
  });
});

describe('AI SDK output', () => {
  it.each<[string, { [key: string]: Plain }, JsonValue]>([
    [
      'ai.response.text',
      { 'ai.response.text': 'It is 24 °C in Rome.' },
      { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'It is 24 °C in Rome.' }] }] },
    ],
    [
      'text and v4 tool calls (args as JSON text) as one assistant message',
      {
        'ai.response.text': 'Checking.',
        'ai.response.toolCalls':
          '[{"toolCallType":"function","toolCallId":"call_1","toolName":"weather","args":"{\\"city\\":\\"Rome\\"}"}]',
      },
      {
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'text', content: 'Checking.' },
              { type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Rome' } },
            ],
          },
        ],
      },
    ],
    [
      'v5 tool calls alone (input)',
      { 'ai.response.toolCalls': '[{"toolCallId":"call_2","toolName":"weather","input":{"city":"Oslo"}}]' },
      {
        messages: [
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_2', name: 'weather', arguments: { city: 'Oslo' } }],
          },
        ],
      },
    ],
    ['ai.toolCall.result', { 'ai.toolCall.result': '{"c":24}' }, { value: { c: 24 } }],
    ['malformed tool calls as the string', { 'ai.response.toolCalls': '[{' }, { value: '[{' }],
    [
      'tool calls in another shape as their JSON, beside a text',
      { 'ai.response.text': 'Checking.', 'ai.response.toolCalls': '{"calls":1}' },
      { value: { calls: 1 } },
    ],
  ])('%s', (_, values, output) => {
    expect(readInputOutput({ attributes: attrs(values), events: [] }).output).toEqual(output);
  });
});

describe('AI SDK spans as sent', () => {
  it('reads a doGenerate span and keeps what it did not read', () => {
    const read = readInputOutput({
      attributes: attrs({
        'operation.name': 'ai.generateText.doGenerate my-function',
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.id': 'gpt-4o',
        'ai.prompt.format': 'messages',
        'ai.prompt.messages': JSON.stringify(v4Messages),
        'ai.prompt.tools': ['{"type":"function","name":"weather"}'],
        'ai.response.text': 'It is 24 °C.',
        'ai.response.finishReason': 'stop',
        'ai.usage.promptTokens': 120,
      }),
      events: [],
    });
    expect(read.input).toEqual({ messages: storedV4 });
    expect(read.output).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'It is 24 °C.' }] }],
    });
    expect(keys(read.attributes)).toEqual([
      'operation.name',
      'ai.operationId',
      'ai.model.id',
      'ai.prompt.format',
      'ai.prompt.tools',
      'ai.response.finishReason',
      'ai.usage.promptTokens',
    ]);
  });

  it('reads a tool call span', () => {
    const read = readInputOutput({
      attributes: attrs({
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'weather',
        'ai.toolCall.id': 'call_r',
        'ai.toolCall.args': '{"city":"Rome"}',
        'ai.toolCall.result': '{"c":24}',
      }),
      events: [],
    });
    expect([read.input, read.output]).toEqual([{ value: { city: 'Rome' } }, { value: { c: 24 } }]);
    expect(keys(read.attributes)).toEqual(['ai.operationId', 'ai.toolCall.name', 'ai.toolCall.id']);
  });

  it('keeps ai.prompt when ai.prompt.messages was read', () => {
    const read = readInputOutput({
      attributes: attrs({ 'ai.prompt': '{"prompt":"outer"}', 'ai.prompt.messages': '[]' }),
      events: [],
    });
    expect(read.input).toEqual({ messages: [] });
    expect(keys(read.attributes)).toEqual(['ai.prompt']);
  });
});
