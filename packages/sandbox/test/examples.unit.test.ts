// Runs each example's agent loop to completion against its recorded model and the recording desktop,
// so the examples cannot rot.

import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { runAgent as runAiSdk } from '../examples/ai-sdk.js';
import { runAgent as runAnthropic } from '../examples/anthropic.js';
import { exampleDesktop } from '../examples/desktop.js';
import { runAgent as runOpenAI } from '../examples/openai.js';
import { recordedModel } from '../examples/recorded/ai-sdk.js';
import { type MessagesClient, recordedAnthropic } from '../examples/recorded/anthropic.js';
import { type ResponsesClient, recordedOpenAI } from '../examples/recorded/openai.js';
import { RecordingDesktop } from './support/recording-desktop.js';

// The stand-ins have the real clients' shape: these fail to compile if the SDKs' clients stop fitting.
export const realAnthropicFits = (client: Anthropic): MessagesClient => client.beta.messages;
export const realOpenAIFits = (client: OpenAI): ResponsesClient => client.responses;

const TASK = 'Sign in as ada@example.com.';

/** What every example's recorded conversation does on the desktop. */
function expectSignedIn(desktop: RecordingDesktop) {
  expect(desktop.typed).toBe('ada@example.com');
  expect(desktop.calls.find((c) => c.method === 'click')?.args[0]).toMatchObject({
    x: 640,
    y: 360,
    button: 'left',
  });
  expect(desktop.calls.filter((c) => c.method === 'key').map((c) => c.args[0])).toEqual(['Return']);
}

describe('examples', () => {
  it('uses the recording desktop without ORRERY_API_KEY and ORRERY_SANDBOX', async () => {
    expect(await exampleDesktop({})).toBeInstanceOf(RecordingDesktop);
    expect(await exampleDesktop({ ORRERY_API_KEY: 'key' })).toBeInstanceOf(RecordingDesktop);
  });

  it('anthropic.ts runs the toolset loop to the final answer', async () => {
    const desktop = new RecordingDesktop();
    const model = recordedAnthropic();
    const log: string[] = [];
    const answer = await runAnthropic(desktop, model, TASK, (line) => log.push(line));
    expect(answer).toBe('Signed in as ada@example.com.');
    expectSignedIn(desktop);
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.tools).toEqual([{ type: 'computer_toolset_20260801' }]);
    // The last request carried the results of the second turn's four calls, none an error.
    const last = model.requests[2]?.messages.at(-1);
    const results = Array.isArray(last?.content) ? last.content : [];
    expect(results.map((b) => b.type === 'tool_result' && !b.is_error && b.tool_use_id)).toEqual([
      'toolu_02',
      'toolu_03',
      'toolu_04',
      'toolu_05',
    ]);
    expect(log).toHaveLength(5);
  });

  it('openai.ts runs the Responses loop to the final answer', async () => {
    const desktop = new RecordingDesktop();
    const model = recordedOpenAI();
    const log: string[] = [];
    const answer = await runOpenAI(desktop, model, TASK, (line) => log.push(line));
    expect(answer).toBe('Signed in as ada@example.com.');
    expectSignedIn(desktop);
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2]).toMatchObject({
      previous_response_id: 'resp_02',
      input: [{ type: 'computer_call_output', call_id: 'call_02' }],
    });
    expect(log.map((line) => line.split(' ')[0])).toEqual([
      'screenshot',
      'click',
      'type',
      'keypress',
      'wait',
    ]);
  }, 10_000);

  it('ai-sdk.ts runs generateText with the tools to the final answer', async () => {
    const desktop = new RecordingDesktop();
    const model = recordedModel();
    const log: string[] = [];
    const answer = await runAiSdk(desktop, model, TASK, (line) => log.push(line));
    expect(answer).toBe('Signed in as ada@example.com.');
    expectSignedIn(desktop);
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(log).toHaveLength(5);
  });
});
