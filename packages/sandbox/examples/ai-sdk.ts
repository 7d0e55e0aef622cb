// An agent loop with the AI SDK (adapter C). Run: npx tsx packages/sandbox/examples/ai-sdk.ts
// Any model the AI SDK drives fits where the recorded one is passed, e.g. anthropic('claude-opus-5-5').

import { generateText, isStepCount, type LanguageModel } from 'ai';
import { computerTools } from '../src/ai/index.js'; // in your project: '@orrery/sandbox/ai'
import type { DesktopActions } from '../src/desktop-types.js';
import { exampleDesktop } from './desktop.js';
import { recordedModel } from './recorded/ai-sdk.js';

export async function runAgent(
  desktop: DesktopActions,
  model: LanguageModel,
  task: string,
  log: (line: string) => void = console.log,
): Promise<string> {
  const result = await generateText({
    model,
    tools: computerTools(desktop),
    stopWhen: isStepCount(20),
    system: 'You operate a computer through the tools. Take a screenshot before acting.',
    prompt: task,
    onStepFinish: (step) => {
      for (const call of step.toolCalls) log(`${call.toolName} ${JSON.stringify(call.input)}`);
    },
  });
  if (result.finishReason !== 'stop') throw new Error(`The model stopped with ${result.finishReason}`);
  return result.text;
}

if (import.meta.main) {
  console.log(await runAgent(await exampleDesktop(), recordedModel(), 'Sign in as ada@example.com.'));
}
