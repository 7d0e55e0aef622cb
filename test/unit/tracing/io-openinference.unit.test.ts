import { describe, expect, it } from 'vitest';
import { readInputOutput, withoutCopies } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, keys, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Input and output", row OpenInference (as openinference-instrumentation-openai
// sends it).
const llmSpan = {
  'openinference.span.kind': 'LLM',
  'llm.model_name': 'gpt-4o-2024-08-06',
  'llm.invocation_parameters': '{"temperature": 0}',
  'input.value': '{"messages": [{"role": "user", "content": "Weather in Lima?"}], "model": "gpt-4o"}',
  'input.mime_type': 'application/json',
  'llm.input_messages.0.message.role': 'system',
  'llm.input_messages.0.message.content': 'You are a weather bot.',
  'llm.input_messages.1.message.role': 'user',
  'llm.input_messages.1.message.contents.0.message_content.type': 'text',
  'llm.input_messages.1.message.contents.0.message_content.text': 'Weather in Lima?',
  'llm.input_messages.1.message.contents.1.message_content.type': 'image',
  'llm.input_messages.1.message.contents.1.message_content.image.image.url': 'https://example.com/lima.png',
  'llm.input_messages.2.message.role': 'assistant',
  'llm.input_messages.2.message.tool_calls.0.tool_call.id': 'call_l',
  'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'get_weather',
  'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': '{"city": "Lima"}',
  'llm.input_messages.3.message.role': 'tool',
  'llm.input_messages.3.message.content': '18 °C, cloudy',
  'llm.input_messages.3.message.tool_call_id': 'call_l',
  'output.value': '{"id": "chatcmpl-1"}',
  'output.mime_type': 'application/json',
  'llm.output_messages.0.message.role': 'assistant',
  'llm.output_messages.0.message.content': 'Cloudy and 18 °C.',
  'llm.token_count.prompt': 52,
};

describe('OpenInference', () => {
  it('reads the message families of an LLM span', () => {
    const read = readInputOutput({ attributes: attrs(llmSpan), events: [] });
    expect(read.input).toEqual({
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'You are a weather bot.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Lima?' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_l', name: 'get_weather', arguments: { city: 'Lima' } }],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_l', response: '18 °C, cloudy' }] },
      ],
    });
    expect(read.output).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Cloudy and 18 °C.' }] }],
    });
  });

  it('consumes the message families whole, and input.value and output.value that only copy them', () => {
    const read = readInputOutput({ attributes: attrs(llmSpan), events: [] });
    expect(keys(read.attributes)).toEqual([
      'openinference.span.kind',
      'llm.model_name',
      'llm.invocation_parameters',
      'input.mime_type',
      'output.mime_type',
      'llm.token_count.prompt',
    ]);
  });

  it.each<[string, { [key: string]: Plain }, string[]]>([
    [
      'both bodies beside both families',
      llmSpan,
      Object.keys(llmSpan).filter((key) => !key.endsWith('.value')),
    ],
    [
      'only the side whose family is there',
      { 'input.value': '{}', 'output.value': 'hi', 'llm.output_messages.0.message.content': 'hi' },
      ['input.value', 'llm.output_messages.0.message.content'],
    ],
    ['none without a family', { 'input.value': '{}', 'output.value': 'hi' }, ['input.value', 'output.value']],
    [
      'none beside keys that only look like a family',
      { 'input.value': '{}', 'llm.input_messages': 'x', 'llm.input_messages.x.role': 'user' },
      ['input.value', 'llm.input_messages', 'llm.input_messages.x.role'],
    ],
  ])('withoutCopies drops the bodies before anything reads them: %s', (_, values, kept) => {
    expect(keys(withoutCopies({ attributes: attrs(values), events: [] }).attributes)).toEqual(kept);
  });

  it('withoutCopies returns a span with nothing to drop as it came', () => {
    const source = { attributes: attrs({ 'input.value': '{}' }), events: [] };
    expect(withoutCopies(source)).toBe(source);
  });

  it.each<[string, { [key: string]: Plain }, JsonValue, JsonValue]>([
    [
      'a chain span: input.value and output.value',
      {
        'openinference.span.kind': 'CHAIN',
        'input.value': '{"question": "Weather in Lima?"}',
        'output.value': 'Cloudy.',
      },
      { value: { question: 'Weather in Lima?' } },
      { value: 'Cloudy.' },
    ],
    [
      'an output that calls several tools',
      {
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'a',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'search',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"q": "lima"}',
        'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'b',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'search',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{"q": "cusco"}',
      },
      null,
      {
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'a', name: 'search', arguments: { q: 'lima' } },
              { type: 'tool_call', id: 'b', name: 'search', arguments: { q: 'cusco' } },
            ],
          },
        ],
      },
    ],
    [
      'a message family without roles',
      { 'llm.input_messages.0.message.content': 'hi', 'llm.output_messages.0.message.content': 'hello' },
      { messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] },
      { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'hello' }] }] },
    ],
  ])('%s', (_, values, input, output) => {
    const read = readInputOutput({ attributes: attrs(values), events: [] });
    expect(read.input).toEqual(input);
    expect(read.output).toEqual(output);
  });
});
