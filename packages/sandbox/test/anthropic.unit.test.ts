import type {
  BetaComputerToolUseBlock,
  BetaContentBlock,
  BetaToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { BETA_COMPUTER_MEMBER_NAME_VALUES } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ComputerStep, computerToolset, NOT_EXECUTED } from '../src/anthropic/index.js';
import {
  makePng,
  pngjsResize,
  RecordingDesktop,
  RefusedByDesktop,
  readPng,
} from './support/recording-desktop.js';

// Recorded assistant content, block by block as the API sends it (`toolset_name: 'computer'`).
let nextId = 0;
function use<B extends BetaComputerToolUseBlock>(
  name: B['name'],
  input: B['input'],
): BetaComputerToolUseBlock {
  nextId += 1;
  return { type: 'tool_use', id: `toolu_${nextId}`, name, input, toolset_name: 'computer' } as B;
}

function textOf(result: BetaToolResultBlockParam | undefined): string {
  const content = result?.content;
  if (!Array.isArray(content) || content[0]?.type !== 'text')
    throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return content[0].text;
}

function imageOf(result: BetaToolResultBlockParam | undefined): string {
  const content = result?.content;
  const block = Array.isArray(content) ? content[0] : undefined;
  if (block?.type !== 'image' || block.source.type !== 'base64' || block.source.media_type !== 'image/png') {
    throw new Error(`not a PNG result: ${JSON.stringify(result).slice(0, 200)}`);
  }
  return block.source.data;
}

const noSleep = async () => {};

describe('computerToolset (adapter A)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('gives the computer_toolset_20260801 tools entry', () => {
    const { tool } = computerToolset(new RecordingDesktop());
    expect(tool).toEqual({ type: 'computer_toolset_20260801' });
  });

  it('runs all 17 members in order, answering OK, X=<n>, Y=<n> or a PNG, each with toolset_name', async () => {
    const desktop = new RecordingDesktop({ cursor: { x: 17, y: 42 } });
    const sleeps: number[] = [];
    const { run } = computerToolset(desktop, { sleep: async (ms) => void sleeps.push(ms) });
    const blocks: BetaComputerToolUseBlock[] = [
      use('screenshot', {}),
      use('key', { text: 'ctrl+s' }),
      use('key', { text: 'return Down', repeat: 3 }),
      use('hold_key', { text: 'shift', duration: 1.5 }),
      use('type', { text: 'hello' }),
      use('cursor_position', {}),
      use('mouse_move', { coordinate: [10, 20] }),
      use('left_mouse_down', {}),
      use('left_mouse_up', {}),
      use('left_click', { coordinate: [100, 200], text: 'ctrl' }),
      use('left_click', {}),
      use('left_click_drag', { start_coordinate: [1, 2], coordinate: [300, 400], text: 'Shift' }),
      use('right_click', { coordinate: [5, 6] }),
      use('middle_click', { coordinate: [7, 8] }),
      use('double_click', { coordinate: [9, 10] }),
      use('triple_click', { coordinate: [11, 12], text: 'control+shift' }),
      use('scroll', { scroll_direction: 'down', scroll_amount: 5, coordinate: [640, 400] }),
      use('scroll', { scroll_direction: 'left', scroll_amount: 2, text: 'alt' }),
      use('wait', { duration: 2 }),
      use('zoom', { region: [0, 0, 640, 400] }),
    ];
    expect(new Set(blocks.map((b) => b.name))).toEqual(new Set(BETA_COMPUTER_MEMBER_NAME_VALUES));
    // Not the toolset's: a text block and a tool_use of another tool are not answered.
    const other: BetaContentBlock = { type: 'tool_use', id: 'toolu_other', name: 'lookup', input: {} };
    const content: BetaContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      other,
      ...blocks,
    ];

    const results = await run(content);

    expect(results.map((r) => r.tool_use_id)).toEqual(blocks.map((b) => b.id));
    expect(
      results.every((r) => r.type === 'tool_result' && r.toolset_name === 'computer' && !r.is_error),
    ).toBe(true);
    const shot = readPng(imageOf(results[0]));
    expect([shot.width, shot.height]).toEqual([1280, 800]);
    expect(textOf(results[5])).toBe('X=17, Y=42');
    const zoomed = readPng(imageOf(results[19]));
    expect([zoomed.width, zoomed.height]).toEqual([1280, 800]);
    for (const index of [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]) {
      expect(textOf(results[index])).toBe('OK');
    }
    expect(desktop.calls).toEqual([
      { method: 'status', args: [] },
      { method: 'screenshot', args: [] },
      { method: 'key', args: ['ctrl+s'] },
      { method: 'key', args: [['Return', 'Down'], { repeat: 3 }] },
      { method: 'hold', args: ['shift', 1.5] },
      { method: 'type', args: ['hello'] },
      { method: 'cursor', args: [] },
      { method: 'move', args: [{ x: 10, y: 20 }] },
      { method: 'mouseDown', args: [] },
      { method: 'mouseUp', args: [] },
      { method: 'click', args: [{ x: 100, y: 200, button: 'left', count: 1, modifiers: 'ctrl' }] },
      { method: 'click', args: [{ button: 'left', count: 1 }] },
      { method: 'drag', args: [{ from: { x: 1, y: 2 }, to: { x: 300, y: 400 }, modifiers: 'shift' }] },
      { method: 'click', args: [{ x: 5, y: 6, button: 'right', count: 1 }] },
      { method: 'click', args: [{ x: 7, y: 8, button: 'middle', count: 1 }] },
      { method: 'click', args: [{ x: 9, y: 10, button: 'left', count: 2 }] },
      { method: 'click', args: [{ x: 11, y: 12, button: 'left', count: 3, modifiers: 'ctrl+shift' }] },
      { method: 'scroll', args: [{ direction: 'down', amount: 5, x: 640, y: 400 }] },
      { method: 'scroll', args: [{ direction: 'left', amount: 2, modifiers: 'alt' }] },
      { method: 'screenshot', args: [{ region: [0, 0, 640, 400] }] },
    ]);
    expect(sleeps).toEqual([2000]);
  });

  it('after a failed call, answers the rest is_error without running them, and reports every call run', async () => {
    const desktop = new RecordingDesktop();
    const steps: ComputerStep[] = [];
    const { run } = computerToolset(desktop, { onAction: (step) => void steps.push(step) });
    desktop.failNext(
      'click',
      new RefusedByDesktop('desktop_refused', 422, 'The desktop could not click there'),
    );
    const blocks = [
      use('screenshot', {}),
      use('left_click', { coordinate: [10, 10] }),
      use('type', { text: 'never typed' }),
      use('key', { text: 'Return' }),
    ];

    const results = await run(blocks);

    expect(results).toHaveLength(4);
    expect(results[0]?.is_error).toBeUndefined();
    expect(results[1]).toMatchObject({
      tool_use_id: blocks[1]?.id,
      toolset_name: 'computer',
      is_error: true,
    });
    expect(textOf(results[1])).toBe('The desktop could not click there');
    for (const skipped of results.slice(2)) {
      expect(skipped).toMatchObject({ toolset_name: 'computer', is_error: true });
      expect(textOf(skipped)).toBe(NOT_EXECUTED);
    }
    expect(NOT_EXECUTED).toBe('Not executed: an earlier computer action in this turn failed.');
    expect(desktop.methods()).toEqual(['status', 'screenshot', 'click']);
    expect(steps.map((s) => s.name)).toEqual(['screenshot', 'left_click']);
    expect(steps[0]?.screenshot).toMatchObject({ width: 1280, height: 800 });
    expect(steps[0]?.error).toBeUndefined();
    expect(steps[1]).toMatchObject({ name: 'left_click', input: { coordinate: [10, 10] } });
    expect(steps[1]?.error?.message).toBe('The desktop could not click there');

    // The next message starts afresh.
    const next = await run([use('type', { text: 'typed now' })]);
    expect(next[0]?.is_error).toBeUndefined();
    expect(desktop.typed).toBe('typed now');
  });

  it('refuses malformed or out-of-range input before calling the desktop, naming the field', async () => {
    const desktop = new RecordingDesktop();
    const { run } = computerToolset(desktop, { sleep: noSleep });
    const cases: Array<[BetaComputerToolUseBlock, RegExp]> = [
      [use('left_click', { coordinate: [1280, 5] }), /^coordinate \[1280, 5\] is outside the screenshot/],
      [use('mouse_move', { coordinate: [1.5, 2] }), /^coordinate must be \[x, y\]/],
      [use('left_click', { coordinate: [5, 5], text: 'a' }), /^text: 'a' cannot be held/],
      [
        use('scroll', { scroll_direction: 'sideways' as 'up', scroll_amount: 3 }),
        /^scroll_direction must be one of/,
      ],
      [use('scroll', { scroll_direction: 'up', scroll_amount: 0 }), /^scroll_amount must be a whole number/],
      [use('wait', { duration: 301 }), /^duration must be 0 to 300 seconds/],
      [use('zoom', { region: [10, 10, 10, 20] }), /^region \[10, 10, 10, 20\] is empty/],
      [use('type', { text: '' }), /^text must be a non-empty string/],
      [use('key', { text: 'ctrl++' }), /has an empty key name/],
    ];
    for (const [block, message] of cases) {
      const [result] = await run([block]);
      expect(result?.is_error, block.name).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    const unknown: BetaContentBlock = {
      type: 'tool_use',
      id: 'toolu_x',
      name: 'paint',
      input: {},
      toolset_name: 'computer',
    };
    const [result] = await run([unknown]);
    expect(textOf(result)).toBe("'paint' is not a member of the computer toolset");
    // Only the status read for the screen's size reached the desktop.
    expect(desktop.methods()).toEqual(['status']);
  });

  it('shrinks a 2560x1600 screen to 2000x1250 and maps positions back to screen pixels', async () => {
    const desktop = new RecordingDesktop({ width: 2560, height: 1600, cursor: { x: 2559, y: 1599 } });
    const steps: ComputerStep[] = [];
    const { run } = computerToolset(desktop, { resize: pngjsResize, onAction: (s) => void steps.push(s) });

    const results = await run([
      use('screenshot', {}),
      use('left_click', { coordinate: [1000, 625] }),
      use('left_click_drag', { start_coordinate: [0, 0], coordinate: [1999, 1249] }),
      use('cursor_position', {}),
      use('zoom', { region: [500, 500, 1500, 1125] }),
      use('scroll', { scroll_direction: 'up', scroll_amount: 1, coordinate: [1, 1] }),
    ]);

    expect(results.filter((r) => r.is_error)).toEqual([]);
    const shot = readPng(imageOf(results[0]));
    expect([shot.width, shot.height]).toEqual([2000, 1250]);
    // The gradient survived the resize: the right edge is still bright red, the left still dark.
    expect(shot.data[(625 * 2000 + 1999) * 4]).toBeGreaterThan(250);
    expect(shot.data[625 * 2000 * 4]).toBeLessThan(5);
    expect(steps[0]?.screenshot).toMatchObject({ width: 2000, height: 1250 });
    expect(textOf(results[3])).toBe('X=1999, Y=1249');
    const zoomed = readPng(imageOf(results[4]));
    expect([zoomed.width, zoomed.height]).toEqual([2000, 1250]);
    expect(desktop.calls.slice(2).map((c) => c.args[0])).toEqual([
      { x: 1280, y: 800, button: 'left', count: 1 },
      { from: { x: 0, y: 0 }, to: { x: 2559, y: 1599 } },
      undefined,
      { region: [640, 640, 1920, 1440] },
      { direction: 'up', amount: 1, x: 1, y: 1 },
    ]);

    const [outside] = await run([use('left_click', { coordinate: [2000, 10] })]);
    expect(textOf(outside)).toBe(
      'coordinate [2000, 10] is outside the screenshot, which is 2000x1250 pixels',
    );
  });

  it('reads the screen size from the status when no screenshot was taken yet', async () => {
    const desktop = new RecordingDesktop({ width: 2560, height: 1600 });
    const { run } = computerToolset(desktop);
    const results = await run([
      use('left_click', { coordinate: [1000, 625] }),
      use('mouse_move', { coordinate: [0, 0] }),
    ]);
    expect(results.filter((r) => r.is_error)).toEqual([]);
    expect(desktop.calls).toEqual([
      { method: 'status', args: [] },
      { method: 'click', args: [{ x: 1280, y: 800, button: 'left', count: 1 }] },
      { method: 'move', args: [{ x: 0, y: 0 }] },
    ]);
  });

  it('refuses a screen over 2000 pixels clearly where there is neither an OffscreenCanvas nor resize', async () => {
    expect(typeof OffscreenCanvas).toBe('undefined');
    const desktop = new RecordingDesktop({ width: 2560, height: 1600 });
    const { run } = computerToolset(desktop);
    const [result] = await run([use('screenshot', {})]);
    expect(result?.is_error).toBe(true);
    expect(textOf(result)).toBe(
      'A 2560x1600 screenshot is over 2000 pixels a side and this runtime has no OffscreenCanvas to shrink it: pass the resize(png, width, height) option',
    );
  });

  it('refuses a resize function that answers the wrong size', async () => {
    const desktop = new RecordingDesktop({ width: 2560, height: 1600 });
    const { run } = computerToolset(desktop, { resize: () => makePng(100, 100).bytes });
    const [result] = await run([use('screenshot', {})]);
    expect(textOf(result)).toBe('resize returned a 100x100 PNG where 2000x1250 was asked');
  });

  it('shrinks with an OffscreenCanvas where the runtime has one', async () => {
    const drawn: unknown[][] = [];
    const bitmap = { width: 2560, height: 1600, close: vi.fn() };
    class FakeOffscreenCanvas {
      constructor(
        readonly width: number,
        readonly height: number,
      ) {}
      getContext() {
        return { drawImage: (...args: unknown[]) => void drawn.push(args) };
      }
      async convertToBlob(options: { type: string }) {
        return new Blob([makePng(this.width, this.height).bytes as Uint8Array<ArrayBuffer>], options);
      }
    }
    const decoded: Blob[] = [];
    vi.stubGlobal('OffscreenCanvas', FakeOffscreenCanvas);
    vi.stubGlobal('createImageBitmap', async (blob: Blob) => {
      decoded.push(blob);
      return bitmap;
    });
    const desktop = new RecordingDesktop({ width: 2560, height: 1600 });
    const { run } = computerToolset(desktop);

    const [result] = await run([use('screenshot', {})]);

    const shot = readPng(imageOf(result));
    expect([shot.width, shot.height]).toEqual([2000, 1250]);
    expect(decoded[0]?.type).toBe('image/png');
    expect(drawn).toEqual([[bitmap, 0, 0, 2000, 1250]]);
    expect(bitmap.close).toHaveBeenCalledOnce();
  });

  it('starts a stopped desktop once, on the first screenshot only', async () => {
    const desktop = new RecordingDesktop({ running: false });
    const { run } = computerToolset(desktop);

    const [first] = await run([use('screenshot', {})]);
    expect(first?.is_error).toBeUndefined();
    expect(desktop.methods()).toEqual(['status', 'start', 'screenshot']);

    await desktop.stop();
    const [second] = await run([use('screenshot', {})]);
    expect(second?.is_error).toBe(true);
    expect(textOf(second)).toBe('The desktop is not running: start it first');
    expect(desktop.methods()).toEqual(['status', 'start', 'screenshot', 'stop', 'screenshot']);
  });

  it('does not start a running desktop', async () => {
    const desktop = new RecordingDesktop();
    const { run } = computerToolset(desktop);
    await run([use('screenshot', {}), use('screenshot', {})]);
    expect(desktop.methods()).toEqual(['status', 'screenshot', 'screenshot']);
  });

  it('waits up to 300 seconds on a timer, without calling the desktop', async () => {
    vi.useFakeTimers();
    const desktop = new RecordingDesktop();
    const { run } = computerToolset(desktop);
    let done = false;
    const running = run([use('wait', { duration: 300 })]).then((results) => {
      done = true;
      return results;
    });

    await vi.advanceTimersByTimeAsync(299_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const [result] = await running;
    expect(done).toBe(true);
    expect(textOf(result)).toBe('OK');
    expect(desktop.calls).toEqual([]);
  });
});
