import { afterEach, describe, expect, it, vi } from 'vitest';
import { readInputOutput } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, event, keys, type Plain } from './reading-fixtures.ts';

afterEach(() => vi.restoreAllMocks());

// 001, Attributes read, "Input and output", row GenAI.
const inputMessages = [
  { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
  {
    role: 'assistant',
    parts: [
      {
        type: 'tool_call',
        id: 'call_VSPygqKTWdrhaFErNvMV18Yl',
        name: 'get_weather',
        arguments: { city: 'Paris' },
      },
    ],
  },
  {
    role: 'tool',
    parts: [{ type: 'tool_call_response', id: 'call_VSPygqKTWdrhaFErNvMV18Yl', response: 'rainy, 57°F' }],
  },
];
const outputMessages = [
  { role: 'assistant', parts: [{ type: 'text', content: 'It is rainy, 57°F.' }], finish_reason: 'stop' },
];
const system = [{ type: 'text', content: 'You are a weather assistant.' }];

const common = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' };

describe('GenAI on the span', () => {
  it.each<[string, { [key: string]: Plain }, JsonValue, JsonValue]>([
    [
      'messages as JSON text, instructions as a leading system message',
      {
        'gen_ai.system_instructions': JSON.stringify(system),
        'gen_ai.input.messages': JSON.stringify(inputMessages),
        'gen_ai.output.messages': JSON.stringify(outputMessages),
      },
      {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'You are a weather assistant.' }] },
          ...inputMessages,
        ],
      },
      { messages: outputMessages },
    ],
    [
      'messages as structured attributes (arrays of kvlists)',
      { 'gen_ai.input.messages': inputMessages, 'gen_ai.output.messages': outputMessages },
      { messages: inputMessages },
      { messages: outputMessages },
    ],
    [
      'instructions alone as a plain text',
      { 'gen_ai.system_instructions': 'Answer briefly.' },
      { messages: [{ role: 'system', parts: [{ type: 'text', content: 'Answer briefly.' }] }] },
      null,
    ],
    [
      'tool call arguments sent as JSON text, and ids left out',
      {
        'gen_ai.output.messages': JSON.stringify([
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}' }],
            finish_reason: 'tool_call',
          },
        ]),
      },
      null,
      {
        messages: [
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Paris' } }],
            finish_reason: 'tool_call',
          },
        ],
      },
    ],
    [
      'parts of other types (blob, reasoning) dropped',
      {
        'gen_ai.input.messages': JSON.stringify([
          {
            role: 'user',
            parts: [
              { type: 'text', content: 'What is this?' },
              { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0KGgo=' },
            ],
          },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', content: 'A logo.' },
              { type: 'text', content: 'A logo.' },
            ],
            finish_reason: 'stop',
          },
        ]),
      },
      { messages: [{ role: 'user', parts: [{ type: 'text', content: 'What is this?' }] }] },
      {
        messages: [
          { role: 'assistant', parts: [{ type: 'text', content: 'A logo.' }], finish_reason: 'stop' },
        ],
      },
    ],
    [
      'malformed JSON kept as the string, never thrown',
      { 'gen_ai.input.messages': '[{"role":"user","parts":[', 'gen_ai.output.messages': 'not json' },
      { value: '[{"role":"user","parts":[' },
      { value: 'not json' },
    ],
    [
      'JSON of another shape kept as a parsed value',
      { 'gen_ai.input.messages': '{"prompt":"hi"}', 'gen_ai.output.messages': '[{"content":"no role"}]' },
      { value: { prompt: 'hi' } },
      { value: [{ content: 'no role' }] },
    ],
  ])('%s', (_, values, input, output) => {
    const read = readInputOutput({ attributes: attrs({ ...common, ...values }), events: [] });
    expect(read.input).toEqual(input);
    expect(read.output).toEqual(output);
  });

  it('parses JSON of another shape once, the value it keeps', () => {
    const attributes = attrs({
      ...common,
      'gen_ai.input.messages': '{"prompt":"hi"}',
      'gen_ai.output.messages': '[{"content":"no role"}]',
    });
    const parse = vi.spyOn(JSON, 'parse');
    readInputOutput({ attributes, events: [] });
    const texts = parse.mock.calls.map(([text]) => text);
    expect(texts.filter((text) => text === '{"prompt":"hi"}')).toHaveLength(1);
    expect(texts.filter((text) => text === '[{"content":"no role"}]')).toHaveLength(1);
  });

  it('removes what it read and keeps the rest', () => {
    const read = readInputOutput({
      attributes: attrs({
        ...common,
        'gen_ai.system_instructions': JSON.stringify(system),
        'gen_ai.input.messages': JSON.stringify(inputMessages),
        'gen_ai.output.messages': JSON.stringify(outputMessages),
      }),
      events: [],
    });
    expect(keys(read.attributes)).toEqual(['gen_ai.operation.name', 'gen_ai.request.model']);
  });

  it('keeps the system instructions as an attribute when the messages are malformed', () => {
    const read = readInputOutput({
      attributes: attrs({ 'gen_ai.system_instructions': 'Be brief.', 'gen_ai.input.messages': '[oops' }),
      events: [],
    });
    expect(read.input).toEqual({ value: '[oops' });
    expect(keys(read.attributes)).toEqual(['gen_ai.system_instructions']);
  });
});

describe('GenAI on the gen_ai.client.inference.operation.details event', () => {
  const details = event('gen_ai.client.inference.operation.details', {
    'gen_ai.input.messages': inputMessages,
    'gen_ai.output.messages': outputMessages,
    'gen_ai.response.id': 'chatcmpl-123',
  });
  const other = event('gen_ai.content.prompt', { 'gen_ai.input.messages': 'not this one' });

  it('reads the event when the span has none of the attributes, and removes them from the event', () => {
    const read = readInputOutput({ attributes: attrs(common), events: [other, details] });
    expect(read.input).toEqual({ messages: inputMessages });
    expect(read.output).toEqual({ messages: outputMessages });
    expect(keys(read.attributes)).toEqual(['gen_ai.operation.name', 'gen_ai.request.model']);
    expect(read.events.map((e) => [e.name, keys(e.attributes)])).toEqual([
      ['gen_ai.content.prompt', ['gen_ai.input.messages']],
      ['gen_ai.client.inference.operation.details', ['gen_ai.response.id']],
    ]);
  });

  it('prefers the span attributes, side by side: input from the span, output from the event', () => {
    const read = readInputOutput({
      attributes: attrs({ 'gen_ai.input.messages': JSON.stringify(inputMessages.slice(0, 1)) }),
      events: [details],
    });
    expect(read.input).toEqual({ messages: inputMessages.slice(0, 1) });
    expect(read.output).toEqual({ messages: outputMessages });
    expect(read.events[0]?.attributes.map((a) => a.key)).toEqual([
      'gen_ai.input.messages',
      'gen_ai.response.id',
    ]);
  });
});
