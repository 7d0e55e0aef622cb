import { isDeepStrictEqual } from 'node:util';
import type {
  BetaComputerToolUseBlock,
  BetaToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ComputerAction, ResponseComputerToolCall } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computerTools } from '../../../packages/sandbox/src/ai/index.ts';
import { computerToolset } from '../../../packages/sandbox/src/anthropic/index.ts';
import { Client, type Desktop, type Sandbox } from '../../../packages/sandbox/src/index.ts';
import { computerCallOutput } from '../../../packages/sandbox/src/openai/index.ts';
import {
  generateText,
  isStepCount,
  MockLanguageModelV4,
} from '../../../packages/sandbox/test/support/ai-sdk.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';
import { colours, testPage } from '../sandboxes-desktop/page.ts';
import { type Box, centre, decodePng, findColour, type Image } from '../sandboxes-desktop/png.ts';

// The three computer-use adapters of @orrery/sandbox against a real sandbox and desktop, through
// the client on a loopback port. The model is outside the product, so its turns are written here,
// typed with each vendor's SDK: each adapter takes a screenshot, the "model" finds the test page's
// button and field on that very PNG, and clicks the button and types into the field through the
// adapter; the page's state is then read through the accessibility route. One desktop for the
// file, started by the Anthropic toolset's first screenshot; each adapter gets a fresh tab.

let api: SandboxApi;
let sandbox: Sandbox;
let desktop: Desktop;
const pageUrl = 'http://127.0.0.1:8000/page.html';
const run = `r${Date.now().toString(36)}`;

beforeAll(async () => {
  api = await givenSandboxApi((runtime) => ({ desktop: createDesktop(runtime) }));
  const baseUrl = api.baseUrl;
  sandbox = await new Client({ apiKey: api.key, baseUrl }).sandboxes.create({ name: `adapters-${run}` });
  desktop = sandbox.desktop;
  await sandbox.files.write('/srv/www/page.html', testPage);
  await sandbox.exec(
    'cd /srv/www && setsid python3 -m http.server 8000 --bind 127.0.0.1 </dev/null >/dev/null 2>&1 &',
  );
  const check = `python3 -c "import urllib.request; urllib.request.urlopen('${pageUrl}')"`;
  await eventually(async () => ((await sandbox.exec(check)).exit_code === 0 ? true : undefined));
}, prepareTimeoutMs);
afterAll(() => api?.cleanup());

describe("Anthropic's computer toolset", () => {
  let runTools: ReturnType<typeof computerToolset>['run'];
  beforeAll(() => {
    runTools = computerToolset(desktop).run;
  });
  let nextId = 0;
  function use<B extends BetaComputerToolUseBlock>(name: B['name'], input: B['input']) {
    nextId += 1;
    return { type: 'tool_use', id: `toolu_${nextId}`, name, input, toolset_name: 'computer' } as B;
  }

  it('starts the stopped desktop on the first screenshot and answers it as a PNG tool_result', async () => {
    expect(await desktop.status()).toEqual({ running: false });
    const block = use('screenshot', {});
    const [result, ...more] = await runTools([block]);
    expect(more).toEqual([]);
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: block.id, toolset_name: 'computer' });
    expect(result?.is_error).toBeUndefined();
    const status = await desktop.status();
    if (!status.running) throw new Error('the first screenshot did not start the desktop');
    const shot = imageOf(result);
    expect(`${shot.width}x${shot.height}`).toBe(status.size);
  }, 90_000);

  it("opens the test page from the browser's address bar with key and type", async () => {
    const results = await runTools([
      use('key', { text: 'ctrl+l' }),
      use('type', { text: pageUrl }),
      use('key', { text: 'Return' }),
    ]);
    expect(results.map(textOf)).toEqual(['OK', 'OK', 'OK']);
    await eventually(async () => findColour(await anthropicScreenshot(), colours.button), 20_000, 'the page');
    expect(await pageState()).toEqual({ button: 'Press me', field: '' });
  });

  it('clicks the button and types into the field found on its screenshot', async () => {
    const { button, field } = controls(await anthropicScreenshot());
    const text = 'typed by Claude ✓';
    const results = await runTools([
      use('left_click', { coordinate: [centre(button).x, centre(button).y] }),
      use('left_click', { coordinate: [centre(field).x, centre(field).y] }),
      use('type', { text }),
    ]);
    expect(results.map((r) => [r.toolset_name, r.is_error, textOf(r)])).toEqual([
      ['computer', undefined, 'OK'],
      ['computer', undefined, 'OK'],
      ['computer', undefined, 'OK'],
    ]);
    await expectPage({ button: 'Clicked', field: text });
  });

  async function anthropicScreenshot(): Promise<Image> {
    return imageOf((await runTools([use('screenshot', {})]))[0]);
  }
});

describe("OpenAI's computer tool", () => {
  let calls = 0;
  function computerCall(actions: ComputerAction[]) {
    calls += 1;
    return {
      type: 'computer_call',
      id: `cu_${calls}`,
      call_id: `call_${calls}`,
      status: 'completed',
      pending_safety_checks: [],
      actions,
    } satisfies ResponseComputerToolCall;
  }

  beforeAll(() => openFreshPage());

  it('clicks and types in one computer_call, answering the screen after as a PNG data URL', async () => {
    const first = await computerCallOutput(desktop, computerCall([{ type: 'screenshot' }]));
    const { button, field } = controls(screenOf(first.output.image_url));
    const text = 'typed by GPT';
    const call = computerCall([
      { type: 'click', button: 'left', ...centre(button) },
      { type: 'click', button: 'left', ...centre(field) },
      { type: 'type', text },
    ]);
    const output = await computerCallOutput(desktop, call);
    expect(output).toMatchObject({
      type: 'computer_call_output',
      call_id: call.call_id,
      acknowledged_safety_checks: [],
      output: { type: 'computer_screenshot' },
    });
    const after = screenOf(output.output.image_url);
    expect(`${after.width}x${after.height}`).toBe(await screenSize());
    expect(findColour(after, colours.clicked), 'the magenta page of a pressed button').toBeDefined();
    await expectPage({ button: 'Clicked', field: text });
  });
});

describe('the AI SDK tools', () => {
  beforeAll(() => openFreshPage());

  it('run a model turn of screenshot, then click, click and type in one step, under generateText', async () => {
    const text = 'typed through the AI SDK';
    let seen: Image | undefined;
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        const turn = model.doGenerateCalls.length;
        if (turn === 1) return toolCalls([['screenshot', {}]]);
        if (turn === 2) {
          seen = lastScreenshot(prompt);
          const { button, field } = controls(seen);
          return toolCalls([
            ['click', centre(button)],
            ['click', centre(field)],
            ['type', { text }],
          ]);
        }
        return {
          ...finish,
          finishReason: { unified: 'stop', raw: 'end_turn' },
          content: [{ type: 'text', text: 'Done.' }],
        };
      },
    });
    const result = await generateText({
      model,
      tools: computerTools(desktop),
      stopWhen: isStepCount(5),
      prompt: 'Press the button, then write in the Name field.',
    });
    expect(result.text).toBe('Done.');
    expect(result.steps.map((step) => step.toolResults.map((r) => [r.toolName, r.output]))).toEqual([
      [['screenshot', expect.objectContaining({ mediaType: 'image/png' })]],
      [
        ['click', 'OK'],
        ['click', 'OK'],
        ['type', 'OK'],
      ],
      [],
    ]);
    expect(`${seen?.width}x${seen?.height}`).toBe(await screenSize());
    await expectPage({ button: 'Clicked', field: text });
  });

  type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];
  type Result = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
  const finish: Omit<Result, 'content'> = {
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 5, text: 5, reasoning: 0 },
    },
    warnings: [],
  };

  function toolCalls(calls: Array<[string, object]>): Result {
    return {
      ...finish,
      content: calls.map(([toolName, input], index) => ({
        type: 'tool-call',
        toolCallId: `call_${index}_${toolName}`,
        toolName,
        input: JSON.stringify(input),
      })),
    };
  }

  /** The screenshot as the SDK showed it to the model: the PNG file part of the last tool result. */
  function lastScreenshot(prompt: Prompt): Image {
    const results = prompt.flatMap((message) =>
      message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
    );
    const output = results.at(-1)?.output;
    const file = output?.type === 'content' ? output.value.find((part) => part.type === 'file') : undefined;
    if (file?.type !== 'file' || file.mediaType !== 'image/png' || file.data.type !== 'data') {
      throw new Error(`the model was not shown a PNG: ${JSON.stringify(output).slice(0, 200)}`);
    }
    const { data } = file.data;
    return decodePng(typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.from(data));
  }
});

/**
 * A new tab of the test page, so each adapter starts from a page nobody has touched. (The desktop
 * is started here only when the Anthropic block did not run first, as with `-t`.)
 */
async function openFreshPage(): Promise<void> {
  if (!(await desktop.status()).running) await desktop.start();
  await desktop.open(pageUrl);
  await eventually(async () => {
    const state = await pageState();
    return isDeepStrictEqual(state, { button: 'Press me', field: '' }) ? state : undefined;
  }, 20_000);
  await eventually(
    async () => findColour(decodePng(Buffer.from((await desktop.screenshot()).bytes)), colours.button),
    20_000,
    'the test page on the screen',
  );
}

async function screenSize(): Promise<string | undefined> {
  const status = await desktop.status();
  return status.running ? status.size : undefined;
}

/** The button and the field, found by their colours on a screenshot. */
function controls(image: Image): { button: Box; field: Box } {
  const button = findColour(image, colours.button);
  const field = findColour(image, colours.field);
  if (!button || !field) throw new Error('the screenshot does not show the blue button and the yellow field');
  return { button, field };
}

interface TreeNode {
  role?: string;
  name?: string;
  value?: string;
  children?: TreeNode[];
}

function findNode(node: TreeNode, test: (node: TreeNode) => boolean): TreeNode | undefined {
  if (test(node)) return node;
  for (const child of node.children ?? []) {
    const found = findNode(child, test);
    if (found) return found;
  }
  return undefined;
}

/** The page's state as the accessibility route reads it from the tab shown. */
async function pageState(): Promise<{ button?: string; field?: string }> {
  const tree = (await desktop.accessibility.tree({ depth: 200 })) as TreeNode;
  const button = findNode(tree, (n) => n.role === 'button' && /^(Press me|Clicked)$/.test(n.name ?? ''));
  const field = findNode(tree, (n) => n.role === 'textbox' && n.name === 'Name');
  return { button: button?.name, field: field === undefined ? undefined : (field.value ?? '') };
}

/** Waits for the page to show `expected`; fails with the state it last showed. */
async function expectPage(expected: { button: string; field: string }): Promise<void> {
  let last: unknown;
  await eventually(async () => {
    last = await pageState();
    return isDeepStrictEqual(last, expected) ? true : undefined;
  }, 10_000).catch(() => undefined);
  expect(last).toEqual(expected);
}

function imageOf(result: BetaToolResultBlockParam | undefined): Image {
  const block = Array.isArray(result?.content) ? result.content[0] : undefined;
  if (block?.type !== 'image' || block.source.type !== 'base64' || block.source.media_type !== 'image/png') {
    throw new Error(`not a PNG tool_result: ${JSON.stringify(result).slice(0, 200)}`);
  }
  return decodePng(Buffer.from(block.source.data, 'base64'));
}

function textOf(result: BetaToolResultBlockParam): string | undefined {
  const block = Array.isArray(result.content) ? result.content[0] : undefined;
  return block?.type === 'text' ? block.text : undefined;
}

function screenOf(imageUrl: string | undefined): Image {
  const prefix = 'data:image/png;base64,';
  if (!imageUrl?.startsWith(prefix)) throw new Error(`not a PNG data URL: ${imageUrl?.slice(0, 40)}`);
  return decodePng(Buffer.from(imageUrl.slice(prefix.length), 'base64'));
}
