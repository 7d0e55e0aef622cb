import { describe, expect, it } from 'vitest';
import type { StoredSpan } from '../../../domain/tracing/span.ts';
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

const attributeKeys = (span: StoredSpan): string[] => Object.keys(parsed(span.attributes) ?? {});

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

  it('an LLM span whose messages were read keeps no copy of its request and response bodies', () => {
    const { sent, stored } = recorded('openinference-openai-pasted-key');
    expect(sentString(sent, 'input.value')).toContain('"messages"');
    expect(sentString(sent, 'output.value')).toContain('"choices"');
    expect(attributeKeys(stored)).not.toContain('input.value');
    expect(attributeKeys(stored)).not.toContain('output.value');
    expect(attributeKeys(stored)).toContain('llm.invocation_parameters');
  });

  it('a credential in a message is removed and counted once, not again in the body that copies it', () => {
    const key = 'sk-proj-Rk3x9QpL2mVw7ZtY4nB8cD1fG6hJ0aSe';
    const { sent, stored } = recorded('openinference-openai-pasted-key');
    expect(sentString(sent, 'input.value')).toContain(key);
    expect(sentString(sent, 'llm.input_messages.1.message.content')).toContain(key);
    expect(stored.redactedCount).toBe(1);
    expect(parsed(stored.input)).toEqual({
      messages: [
        { role: 'system', parts: [{ type: 'text', content: 'You help with API errors.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Why does [REDACTED] fail with 401?' }] },
      ],
    });
    expect([stored.input, stored.output, stored.attributes].join()).not.toContain(key);
  });

  it('a span without messages still reads its bodies as input and output', () => {
    const { stored } = recorded('openinference-openai-embeddings');
    expect(parsed(stored.input)).toMatchObject({
      value: { input: ['sunny day at the beach', 'rainy afternoon'] },
    });
    expect(parsed(stored.output)).toMatchObject({ value: { model: 'text-embedding-3-small' } });
  });
});
