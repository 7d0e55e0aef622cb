// A recorded conversation for the AI SDK: a mock language model (from `ai/test`) that answers each
// step with the next recorded result, and keeps the prompts it was sent.

import { MockLanguageModelV4 } from 'ai/test';

/** One recorded model step, typed by the mock model's own `doGenerate`. */
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const usage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 1200, noCache: 1200, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 60, text: 60, reasoning: 0 },
};

function step(calls: Array<[string, object]>): LanguageModelV4GenerateResult {
  return {
    content: calls.map(([toolName, input], index) => ({
      type: 'tool-call',
      toolCallId: `call_${toolName}_${index}`,
      toolName,
      input: JSON.stringify(input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage,
    warnings: [],
  };
}

export function recordedModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: [
      step([['screenshot', {}]]),
      step([
        ['click', { x: 640, y: 360 }],
        ['type', { text: 'ada@example.com' }],
        ['key', { keys: 'Return' }],
        ['screenshot', {}],
      ]),
      {
        content: [{ type: 'text', text: 'Signed in as ada@example.com.' }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [],
      },
    ],
  });
}
