import { describe, expect, it } from 'vitest';
import { conventions, readInputOutput } from '../../../domain/tracing/io/index.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, keys, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Input and output": the first convention that has an input provides it;
// separately, the first that has an output provides it.
it('tries the conventions in the order of the table', () => {
  expect(conventions.map((convention) => convention.name)).toEqual([
    'GenAI',
    'GenAI indexed',
    'GenAI tool calls',
    'AI SDK',
    'OpenInference',
    'Traceloop',
  ]);
});

// One input and one output attribute per convention, each value naming its convention.
const sent: { [convention: string]: [string, string, Plain, Plain] } = {
  genai: [
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    '[{"role":"user","parts":[{"type":"text","content":"genai"}]}]',
    '[{"role":"assistant","parts":[{"type":"text","content":"genai"}]}]',
  ],
  indexed: ['gen_ai.prompt.0.content', 'gen_ai.completion.0.content', 'indexed', 'indexed'],
  tool: ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', '"tool"', '"tool"'],
  aiSdk: ['ai.toolCall.args', 'ai.toolCall.result', '"ai-sdk"', '"ai-sdk"'],
  openInference: ['input.value', 'output.value', 'openinference', 'openinference'],
  traceloop: ['traceloop.entity.input', 'traceloop.entity.output', '"traceloop"', '"traceloop"'],
};
const stored: { [convention: string]: [JsonValue, JsonValue] } = {
  genai: [
    { messages: [{ role: 'user', parts: [{ type: 'text', content: 'genai' }] }] },
    { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'genai' }] }] },
  ],
  indexed: [
    { messages: [{ role: 'user', parts: [{ type: 'text', content: 'indexed' }] }] },
    { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'indexed' }] }] },
  ],
  tool: [{ value: 'tool' }, { value: 'tool' }],
  aiSdk: [{ value: 'ai-sdk' }, { value: 'ai-sdk' }],
  openInference: [{ value: 'openinference' }, { value: 'openinference' }],
  traceloop: [{ value: 'traceloop' }, { value: 'traceloop' }],
};

function attributesOf(inputsFrom: string[], outputsFrom: string[]) {
  const values: { [key: string]: Plain } = {};
  for (const name of inputsFrom) values[sent[name]![0]] = sent[name]![2];
  for (const name of outputsFrom) values[sent[name]![1]] = sent[name]![3];
  return attrs(values);
}

describe('precedence between conventions', () => {
  it.each<[string[], string[], string, string]>([
    [
      ['traceloop', 'openInference', 'aiSdk', 'tool', 'indexed', 'genai'],
      ['traceloop', 'genai'],
      'genai',
      'genai',
    ],
    [
      ['traceloop', 'openInference', 'aiSdk', 'tool', 'indexed'],
      ['traceloop', 'indexed'],
      'indexed',
      'indexed',
    ],
    [['traceloop', 'openInference', 'aiSdk', 'tool'], ['traceloop', 'tool'], 'tool', 'tool'],
    [['traceloop', 'openInference', 'aiSdk'], ['traceloop', 'aiSdk'], 'aiSdk', 'aiSdk'],
    [['traceloop', 'openInference'], ['traceloop', 'openInference'], 'openInference', 'openInference'],
    [['traceloop'], ['traceloop'], 'traceloop', 'traceloop'],
    [['traceloop'], ['genai'], 'traceloop', 'genai'],
    [['genai'], ['openInference'], 'genai', 'openInference'],
    [['openInference', 'aiSdk'], ['traceloop', 'indexed'], 'aiSdk', 'indexed'],
  ])(
    'inputs from %j and outputs from %j: input from %s, output from %s',
    (ins, outs, inputFrom, outputFrom) => {
      const read = readInputOutput({ attributes: attributesOf(ins, outs), events: [] });
      expect(read.input).toEqual(stored[inputFrom]![0]);
      expect(read.output).toEqual(stored[outputFrom]![1]);
    },
  );

  it('removes only the winners’ attributes; the others stay as sent', () => {
    const read = readInputOutput({
      attributes: attributesOf(['openInference', 'aiSdk'], ['traceloop', 'indexed']),
      events: [],
    });
    expect(keys(read.attributes).sort()).toEqual(['input.value', 'traceloop.entity.output']);
  });

  it('is null on both sides for a span of no convention', () => {
    const read = readInputOutput({ attributes: attrs({ 'http.method': 'POST' }), events: [] });
    expect([read.input, read.output, keys(read.attributes)]).toEqual([null, null, ['http.method']]);
  });
});
