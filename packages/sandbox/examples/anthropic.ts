// An agent loop with Anthropic's computer toolset (adapter A). Run: npx tsx packages/sandbox/examples/anthropic.ts
// With ANTHROPIC_API_KEY you would pass `new Anthropic().beta.messages` instead of the recorded model.

import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { computerToolset } from '../src/anthropic/index.js'; // in your project: '@orrery/sandbox/anthropic'
import type { DesktopActions } from '../src/desktop-types.js';
import { pngjsResize } from '../test/support/recording-desktop.js';
import { exampleDesktop } from './desktop.js';
import { type MessagesClient, recordedAnthropic } from './recorded/anthropic.js';

export async function runAgent(
  desktop: DesktopActions,
  messages: MessagesClient,
  task: string,
  log: (line: string) => void = console.log,
): Promise<string> {
  const { tool, run } = computerToolset(desktop, {
    resize: pngjsResize, // only used for screens over 2000 pixels a side, in Node
    onAction: ({ name, input, error }) =>
      log(`${name} ${JSON.stringify(input)}${error ? ` failed: ${error.message}` : ''}`),
  });
  const history: BetaMessageParam[] = [{ role: 'user', content: task }];
  for (let turn = 0; turn < 20; turn++) {
    const message = await messages.create({
      model: 'claude-opus-5-5',
      max_tokens: 2048,
      tools: [tool],
      messages: history,
    });
    history.push({ role: 'assistant', content: message.content });
    const results = await run(message.content);
    if (results.length === 0) {
      return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    }
    history.push({ role: 'user', content: results });
  }
  throw new Error('The model did not finish in 20 turns');
}

if (import.meta.main) {
  console.log(await runAgent(await exampleDesktop(), recordedAnthropic(), 'Sign in as ada@example.com.'));
}
