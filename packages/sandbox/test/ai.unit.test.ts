import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** One recorded model step, typed by the mock model's own `doGenerate`. */
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type LanguageModelV4Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];

import { describe, expect, it } from 'vitest';
import { computerTools } from '../src/ai/index.js';
import type { ClickOptions } from '../src/desktop-types.ts';
import { RecordingDesktop, RefusedByDesktop, readPng } from './support/recording-desktop.js';

// Recorded model turns in the AI SDK's provider shape: tool calls, then a final answer.
const usage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function toolCalls(calls: Array<[string, object]>): LanguageModelV4GenerateResult {
  return {
    content: calls.map(([toolName, input], index) => ({
      type: 'tool-call',
      toolCallId: `call_${index}_${toolName}`,
      toolName,
      input: JSON.stringify(input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage,
    warnings: [],
  };
}

const answer: LanguageModelV4GenerateResult = {
  content: [{ type: 'text', text: 'Done.' }],
  finishReason: { unified: 'stop', raw: 'end_turn' },
  usage,
  warnings: [],
};

/** The tool results the model was sent on its second turn, by tool call id. */
function resultsSent(prompt: LanguageModelV4Prompt) {
  return prompt.flatMap((message) =>
    message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
  );
}

async function runTurn(desktop: RecordingDesktop, calls: Array<[string, object]>) {
  const model = new MockLanguageModelV4({ doGenerate: [toolCalls(calls), answer] });
  const result = await generateText({
    model,
    tools: computerTools(desktop),
    stopWhen: isStepCount(3),
    prompt: 'Open the page and sign in.',
  });
  expect(result.text).toBe('Done.');
  expect(model.doGenerateCalls).toHaveLength(2);
  return { sent: resultsSent(model.doGenerateCalls[1]!.prompt), first: model.doGenerateCalls[0]! };
}

describe('computerTools (adapter C)', () => {
  it('offers exactly screenshot, click, type, key, scroll, move and drag', async () => {
    const tools = computerTools(new RecordingDesktop());
    expect(Object.keys(tools)).toEqual(['screenshot', 'click', 'type', 'key', 'scroll', 'move', 'drag']);
    const model = new MockLanguageModelV4({ doGenerate: answer });
    await generateText({ model, tools, prompt: 'Hello' });
    const offered = model.doGenerateCalls[0]!.tools ?? [];
    expect(offered.map((t) => t.name)).toEqual([
      'screenshot',
      'click',
      'type',
      'key',
      'scroll',
      'move',
      'drag',
    ]);
    const click = offered.find((t) => t.name === 'click');
    expect(click?.type === 'function' && click.inputSchema).toMatchObject({
      type: 'object',
      properties: { x: { type: 'integer' }, button: { enum: ['left', 'middle', 'right'] } },
      required: expect.arrayContaining(['x', 'y']),
    });
  });

  it('runs each tool on the desktop and shows the model the screenshot as a PNG image', async () => {
    const desktop = new RecordingDesktop({ width: 1024, height: 768 });
    const { sent } = await runTurn(desktop, [
      ['screenshot', {}],
      ['click', { x: 10, y: 20 }],
      ['click', { x: 30, y: 40, button: 'right', count: 2, modifiers: 'CTRL+shift' }],
      ['type', { text: 'ada@example.com' }],
      ['key', { keys: 'ctrl+a BackSpace' }],
      ['key', { keys: 'return', repeat: 2 }],
      ['scroll', { x: 500, y: 400, direction: 'down' }],
      ['move', { x: 7, y: 8 }],
      ['drag', { from: { x: 1, y: 2 }, to: { x: 3, y: 4 }, modifiers: 'alt' }],
    ]);

    expect(desktop.calls).toEqual([
      { method: 'screenshot', args: [] },
      { method: 'click', args: [{ x: 10, y: 20, button: 'left', count: 1 }] },
      { method: 'click', args: [{ x: 30, y: 40, button: 'right', count: 2, modifiers: 'ctrl+shift' }] },
      { method: 'type', args: ['ada@example.com'] },
      { method: 'key', args: [['ctrl+a', 'BackSpace']] },
      { method: 'key', args: ['Return', { repeat: 2 }] },
      { method: 'scroll', args: [{ direction: 'down', amount: 3, x: 500, y: 400 }] },
      { method: 'move', args: [{ x: 7, y: 8 }] },
      { method: 'drag', args: [{ from: { x: 1, y: 2 }, to: { x: 3, y: 4 }, modifiers: 'alt' }] },
    ]);

    expect(sent).toHaveLength(9);
    const screenshot = sent.find((part) => part.toolName === 'screenshot');
    expect(screenshot?.output.type).toBe('content');
    const parts = screenshot?.output.type === 'content' ? screenshot.output.value : [];
    expect(parts[0]).toEqual({ type: 'text', text: 'The screen, 1024x768 pixels:' });
    const image = parts[1];
    if (image?.type !== 'file' || image.data.type !== 'data' || typeof image.data.data !== 'string') {
      throw new Error(`the screenshot did not reach the model as base64 file data: ${JSON.stringify(image)}`);
    }
    expect(image.mediaType).toBe('image/png');
    const png = readPng(image.data.data);
    expect([png.width, png.height]).toEqual([1024, 768]);
    for (const part of sent.filter((p) => p.toolName !== 'screenshot')) {
      expect(part.output).toEqual({ type: 'text', value: 'OK' });
    }
  });

  it("runs a step's tool calls one after another, in the model's order, though the SDK starts them at once", async () => {
    // Each call takes a few turns of the event loop, as a request does; without the queue, the
    // SDK's concurrent calls would overlap (type before the click that focuses the field is done).
    const events: string[] = [];
    class SlowDesktop extends RecordingDesktop {
      async #slowly(what: string, work: () => Promise<void>): Promise<void> {
        events.push(`${what} start`);
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        await work();
        events.push(`${what} end`);
      }
      override click(options?: ClickOptions) {
        return this.#slowly('click', () => super.click(options));
      }
      override type(text: string) {
        return this.#slowly('type', () => super.type(text));
      }
    }
    const desktop = new SlowDesktop();
    desktop.failNext(
      'click',
      new RefusedByDesktop('desktop_refused', 422, 'The desktop could not click there'),
    );
    const { sent } = await runTurn(desktop, [
      ['click', { x: 1, y: 1 }],
      ['click', { x: 10, y: 20 }],
      ['type', { text: 'ada' }],
    ]);
    expect(events).toEqual(['click start', 'click start', 'click end', 'type start', 'type end']);
    expect(sent.map((part) => part.output.type)).toEqual(['error-text', 'text', 'text']);
    expect(desktop.typed).toBe('ada');
  });

  it('gives the model the desktop refusal as an error result (the AI SDK prefixes the error name)', async () => {
    const desktop = new RecordingDesktop();
    desktop.failNext(
      'click',
      new RefusedByDesktop('desktop_refused', 422, 'The desktop could not click there'),
    );
    const { sent } = await runTurn(desktop, [['click', { x: 1, y: 1 }]]);
    expect(sent[0]?.output).toEqual({
      type: 'error-text',
      value: 'RefusedByDesktop: The desktop could not click there',
    });
  });

  it('refuses input outside the schemas without calling the desktop', async () => {
    const desktop = new RecordingDesktop();
    const { sent } = await runTurn(desktop, [
      ['click', { x: 1, y: 1, count: 4 }],
      ['scroll', { x: 1, y: 1, direction: 'sideways' }],
      ['move', { x: -5, y: 1 }],
      ['click', { x: 1, y: 1, modifiers: 'a' }],
    ]);
    expect(sent.map((part) => part.output.type)).toEqual([
      'error-text',
      'error-text',
      'error-text',
      'error-text',
    ]);
    const last = sent[3]?.output;
    expect(last?.type === 'error-text' && last.value).toBe(
      "ComputerUseError: modifiers: 'a' cannot be held during this action; only shift, ctrl, alt, super can",
    );
    expect(desktop.calls).toEqual([]);
  });
});
