// An agent loop with OpenAI's computer tool (adapter B). Run: npx tsx packages/sandbox/examples/openai.ts
// With OPENAI_API_KEY you would pass `new OpenAI().responses` instead of the recorded model.

import type { ResponseComputerToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import type { DesktopActions } from '../src/desktop-types.js';
import { computerCallOutput, computerTool } from '../src/openai/index.js'; // in your project: '@orrery/sandbox/openai'
import { exampleDesktop } from './desktop.js';
import { type ResponsesClient, recordedOpenAI } from './recorded/openai.js';

export async function runAgent(
  desktop: DesktopActions,
  responses: ResponsesClient,
  task: string,
  log: (line: string) => void = console.log,
): Promise<string> {
  let input: ResponseInputItem[] = [{ role: 'user', content: task }];
  let previous: string | undefined;
  for (let turn = 0; turn < 20; turn++) {
    const response = await responses.create({
      model: 'gpt-5.5',
      tools: [computerTool],
      input,
      ...(previous ? { previous_response_id: previous } : {}),
    });
    const calls = response.output.filter(
      (item): item is ResponseComputerToolCall => item.type === 'computer_call',
    );
    if (calls.length === 0) return response.output_text;
    input = [];
    for (const call of calls) {
      // Show call.pending_safety_checks to a person and pass the ones they approve; none are approved here.
      input.push(
        await computerCallOutput(desktop, call, {
          acknowledgedSafetyChecks: [],
          onAction: (action) => log(`${action.type} ${JSON.stringify(action)}`),
        }),
      );
    }
    previous = response.id;
  }
  throw new Error('The model did not finish in 20 turns');
}

if (import.meta.main) {
  console.log(await runAgent(await exampleDesktop(), recordedOpenAI(), 'Sign in as ada@example.com.'));
}
