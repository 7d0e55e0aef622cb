import { describe, expect, it } from 'vitest';
import { readInputOutput } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, keys, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Input and output", row GenAI indexed (as OpenLLMetry's OpenAI
// instrumentation sends it).
const toolRound = {
  'llm.request.type': 'chat',
  'gen_ai.system': 'openai',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.prompt.0.role': 'system',
  'gen_ai.prompt.0.content': 'You help with the weather.',
  'gen_ai.prompt.1.role': 'user',
  'gen_ai.prompt.1.content': 'Weather in Oslo?',
  'gen_ai.prompt.2.role': 'assistant',
  'gen_ai.prompt.2.tool_calls.0.id': 'call_1',
  'gen_ai.prompt.2.tool_calls.0.name': 'get_weather',
  'gen_ai.prompt.2.tool_calls.0.arguments': '{"city": "Oslo"}',
  'gen_ai.prompt.3.role': 'tool',
  'gen_ai.prompt.3.content': '{"temp_c": -3}',
  'gen_ai.prompt.3.tool_call_id': 'call_1',
  'gen_ai.completion.0.role': 'assistant',
  'gen_ai.completion.0.finish_reason': 'stop',
  'gen_ai.completion.0.content': 'It is -3 °C in Oslo.',
  'gen_ai.usage.prompt_tokens': 91,
};

describe('GenAI indexed', () => {
  it.each<[string, { [key: string]: Plain }, JsonValue, JsonValue]>([
    [
      'a tool round: calls on the prompt, the tool answer by tool_call_id, finish_reason on the completion',
      toolRound,
      {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: 'You help with the weather.' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }],
          },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { temp_c: -3 } }] },
        ],
      },
      {
        messages: [
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'It is -3 °C in Oslo.' }],
            finish_reason: 'stop',
          },
        ],
      },
    ],
    [
      'a completion that calls tools',
      {
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Weather in Oslo and Bergen?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.finish_reason': 'tool_calls',
        'gen_ai.completion.0.tool_calls.1.id': 'call_b',
        'gen_ai.completion.0.tool_calls.1.name': 'get_weather',
        'gen_ai.completion.0.tool_calls.1.arguments': '{"city":"Bergen"}',
        'gen_ai.completion.0.tool_calls.0.id': 'call_a',
        'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
        'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Oslo"}',
      },
      { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Oslo and Bergen?' }] }] },
      {
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
              { type: 'tool_call', id: 'call_b', name: 'get_weather', arguments: { city: 'Bergen' } },
            ],
            finish_reason: 'tool_calls',
          },
        ],
      },
    ],
    [
      'members in index order, not in the order sent, with a gap, and missing roles defaulted',
      {
        'gen_ai.prompt.10.content': 'third',
        'gen_ai.prompt.2.content': 'second',
        'gen_ai.prompt.0.content': 'first',
        'gen_ai.completion.0.content': 'answer',
      },
      {
        messages: [
          { role: 'user', parts: [{ type: 'text', content: 'first' }] },
          { role: 'user', parts: [{ type: 'text', content: 'second' }] },
          { role: 'user', parts: [{ type: 'text', content: 'third' }] },
        ],
      },
      { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'answer' }] }] },
    ],
    [
      'arguments that are not JSON kept as text',
      {
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.tool_calls.0.name': 'search',
        'gen_ai.completion.0.tool_calls.0.arguments': 'oslo weather',
      },
      null,
      {
        messages: [
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: null, name: 'search', arguments: 'oslo weather' }],
          },
        ],
      },
    ],
  ])('%s', (_, values, input, output) => {
    const read = readInputOutput({ attributes: attrs(values), events: [] });
    expect(read.input).toEqual(input);
    expect(read.output).toEqual(output);
  });

  // OpenLLMetry sends a list content as its JSON text (test/fixtures/instrumentations for real spans).
  const parts = (content: string) =>
    readInputOutput({
      attributes: attrs({ 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': content }),
      events: [],
    }).input;
  const userParts = (...messageParts: JsonValue[]): JsonValue => ({
    messages: [{ role: 'user', parts: messageParts }],
  });

  it.each<[string, string, JsonValue]>([
    [
      'OpenAI text and image parts: the text parts, the image dropped',
      '[{"type": "text", "text": "What is it?"}, {"type": "image_url", "image_url": {"url": "https://x/o.png"}}, {"type": "text", "text": "Be brief."}]',
      userParts({ type: 'text', content: 'What is it?' }, { type: 'text', content: 'Be brief.' }),
    ],
    [
      "Anthropic's tool_result as a tool answer, its tool_use dropped (sent again as tool_calls)",
      '[{"type": "tool_use", "id": "t1", "name": "f", "input": {}}, {"type": "tool_result", "tool_use_id": "t1", "content": "{\\"ok\\": true}"}]',
      userParts({ type: 'tool_call_response', id: 't1', response: { ok: true } }),
    ],
    [
      'only parts that have no stored part: no parts',
      '[{"type": "input_audio", "input_audio": {}}]',
      userParts(),
    ],
    [
      'prose that opens with a bracket stays text',
      '[draft] hello',
      userParts({ type: 'text', content: '[draft] hello' }),
    ],
    ['a JSON array of other values stays text', '[1, 2]', userParts({ type: 'text', content: '[1, 2]' })],
    ['an empty JSON array stays text', '[]', userParts({ type: 'text', content: '[]' })],
    [
      'an array with one untyped member stays text',
      '[{"type": "text", "text": "a"}, {"text": "b"}]',
      userParts({ type: 'text', content: '[{"type": "text", "text": "a"}, {"text": "b"}]' }),
    ],
    [
      'a JSON object stays text',
      '{"type": "text", "text": "a"}',
      userParts({ type: 'text', content: '{"type": "text", "text": "a"}' }),
    ],
  ])('multi-part content: %s', (_, content, input) => {
    expect(parts(content)).toEqual(input);
  });

  it('multi-part content of a completion too', () => {
    const read = readInputOutput({
      attributes: attrs({ 'gen_ai.completion.0.content': '[{"type": "text", "text": "Hello."}]' }),
      events: [],
    });
    expect(read.output).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello.' }] }],
    });
  });

  it('consumes both whole families and keeps everything else', () => {
    const read = readInputOutput({ attributes: attrs(toolRound), events: [] });
    expect(keys(read.attributes)).toEqual([
      'llm.request.type',
      'gen_ai.system',
      'gen_ai.request.model',
      'gen_ai.usage.prompt_tokens',
    ]);
  });

  it('gives way to GenAI for input while still providing the output', () => {
    const read = readInputOutput({
      attributes: attrs({
        'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"new"}]}]',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'old',
        'gen_ai.completion.0.content': 'answer',
      }),
      events: [],
    });
    expect(read.input).toEqual({ messages: [{ role: 'user', parts: [{ type: 'text', content: 'new' }] }] });
    expect(read.output).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'answer' }] }],
    });
    expect(keys(read.attributes)).toEqual(['gen_ai.prompt.0.role', 'gen_ai.prompt.0.content']);
  });
});
