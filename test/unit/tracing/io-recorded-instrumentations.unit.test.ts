import { describe, expect, it } from 'vitest';
import { parsed, recordedRequest, sentSpans, sentString, storedSpans } from './instrumented-spans.ts';

// 001, Attributes read: spans recorded from Python instrumentations run against a stub of the
// vendor's API (test/fixtures/instrumentations/README.md), decoded and normalized as sent.

function recorded(name: string) {
  const request = recordedRequest(name);
  const [sent] = sentSpans(request);
  const [stored] = storedSpans(request);
  if (sent === undefined || stored === undefined) throw new Error(`${name} holds no span`);
  return { sent, stored };
}

describe('OpenLLMetry (GenAI indexed): multi-part content sent as the JSON text of its parts', () => {
  it('OpenAI content parts become text parts; the image part is dropped', () => {
    const { sent, stored } = recorded('openllmetry-openai-multipart-content');
    expect(sentString(sent, 'gen_ai.prompt.1.content')).toMatch(/^\[\{"type": "text", "text": "What is/);
    expect(parsed(stored.input)).toEqual({
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'You describe pictures.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'What is in this picture?' }] },
      ],
    });
    expect(parsed(stored.output)).toEqual({
      messages: [
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'An otter floating on its back.' }],
          finish_reason: 'stop',
        },
      ],
    });
    expect(stored).toMatchObject({ kind: 'generation', model: 'gpt-4o-2024-08-06', inputTokens: 812 });
  });

  it("a tool's answer sent as content parts stays that tool's answer", () => {
    const { stored } = recorded('openllmetry-openai-tool-round');
    expect(parsed(stored.input)).toEqual({
      messages: [
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Oslo?' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo' } }],
        },
        {
          role: 'tool',
          parts: [
            {
              type: 'tool_call_response',
              id: 'call_oslo',
              response: [{ type: 'text', text: '-3 °C, snow' }],
            },
          ],
        },
      ],
    });
  });

  it('Anthropic blocks: tool_result is a tool answer, tool_use comes once (from tool_calls)', () => {
    const { sent, stored } = recorded('openllmetry-anthropic-tool-result');
    expect(sentString(sent, 'gen_ai.prompt.1.content')).toContain('"type": "tool_use"');
    expect(sentString(sent, 'gen_ai.prompt.1.tool_calls.0.id')).toBe('toolu_oslo');
    expect(parsed(stored.input)).toEqual({
      messages: [
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Oslo?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'Let me check.' },
            { type: 'tool_call', id: 'toolu_oslo', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_call_response', id: 'toolu_oslo', response: '-3 °C, snow' },
            { type: 'text', content: 'Answer in one sentence.' },
          ],
        },
      ],
    });
  });
});

describe('OpenInference', () => {
  it('an embedding span takes its model from embedding.model_name', () => {
    const { sent, stored } = recorded('openinference-openai-embeddings');
    expect(sentString(sent, 'llm.model_name')).toBeUndefined();
    expect(stored).toMatchObject({ kind: 'generation', model: 'text-embedding-3-small', inputTokens: 9 });
  });
});
