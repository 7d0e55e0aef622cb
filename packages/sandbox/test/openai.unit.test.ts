import type { ComputerAction, ResponseComputerToolCall } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ComputerUseError,
  computerCallOutput,
  computerTool,
  openaiKey,
  UnacknowledgedSafetyCheckError,
} from '../src/openai/index.js';
import { RecordingDesktop, RefusedByDesktop, readPng } from './support/recording-desktop.js';

// Recorded computer_call items as the Responses API sends them.
function batch(actions: ComputerAction[], checks: ResponseComputerToolCall.PendingSafetyCheck[] = []) {
  return {
    type: 'computer_call',
    id: 'cu_1',
    call_id: 'call_1',
    status: 'completed',
    pending_safety_checks: checks,
    actions,
  } satisfies ResponseComputerToolCall;
}

function pngOf(imageUrl: string | undefined) {
  const prefix = 'data:image/png;base64,';
  if (!imageUrl?.startsWith(prefix)) throw new Error(`not a PNG data URL: ${imageUrl?.slice(0, 40)}`);
  return readPng(imageUrl.slice(prefix.length));
}

const noSleep = async () => {};

describe('computerCallOutput (adapter B)', () => {
  afterEach(() => vi.useRealTimers());

  it('is offered as the { type: computer } tool', () => {
    expect(computerTool).toEqual({ type: 'computer' });
  });

  it('runs every action in order, then answers a computer_call_output with one screenshot', async () => {
    const desktop = new RecordingDesktop();
    const sleeps: number[] = [];
    const seen: ComputerAction[] = [];
    const actions: ComputerAction[] = [
      { type: 'screenshot' },
      { type: 'click', button: 'left', x: 10, y: 20 },
      { type: 'click', button: 'right', x: 11, y: 21, keys: ['SHIFT'] },
      { type: 'click', button: 'wheel', x: 12, y: 22 },
      { type: 'click', button: 'back', x: 13, y: 23 },
      { type: 'click', button: 'forward', x: 14, y: 24, keys: ['CTRL'] },
      { type: 'double_click', x: 15, y: 25, keys: null },
      {
        type: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 30, y: 40 },
        ],
        keys: ['CTRL'],
      },
      {
        type: 'drag',
        path: [
          { x: 5, y: 5 },
          { x: 50, y: 5 },
          { x: 50, y: 50 },
        ],
      },
      { type: 'keypress', keys: ['CTRL', 'A'] },
      { type: 'keypress', keys: ['ENTER'] },
      { type: 'move', x: 100, y: 200 },
      { type: 'scroll', x: 300, y: 400, scroll_x: 0, scroll_y: 250 },
      { type: 'scroll', x: 300, y: 400, scroll_x: -100, scroll_y: -30, keys: ['SHIFT'] },
      { type: 'type', text: 'hello' },
      { type: 'wait' },
    ];

    const output = await computerCallOutput(desktop, batch(actions), {
      sleep: async (ms) => void sleeps.push(ms),
      onAction: (action) => void seen.push(action),
    });

    expect(desktop.calls).toEqual([
      { method: 'click', args: [{ x: 10, y: 20, button: 'left', count: 1 }] },
      { method: 'click', args: [{ x: 11, y: 21, button: 'right', count: 1, modifiers: 'shift' }] },
      { method: 'click', args: [{ x: 12, y: 22, button: 'middle', count: 1 }] },
      { method: 'move', args: [{ x: 13, y: 23 }] },
      { method: 'key', args: ['alt+Left'] },
      { method: 'move', args: [{ x: 14, y: 24 }] },
      { method: 'key', args: ['ctrl+alt+Right'] },
      { method: 'click', args: [{ x: 15, y: 25, button: 'left', count: 2 }] },
      { method: 'drag', args: [{ from: { x: 1, y: 2 }, to: { x: 30, y: 40 }, modifiers: 'ctrl' }] },
      { method: 'move', args: [{ x: 5, y: 5 }] },
      { method: 'mouseDown', args: [] },
      { method: 'move', args: [{ x: 50, y: 5 }] },
      { method: 'move', args: [{ x: 50, y: 50 }] },
      { method: 'mouseUp', args: [] },
      { method: 'key', args: ['ctrl+a'] },
      { method: 'key', args: ['Return'] },
      { method: 'move', args: [{ x: 100, y: 200 }] },
      { method: 'scroll', args: [{ direction: 'down', amount: 3, x: 300, y: 400 }] },
      { method: 'scroll', args: [{ direction: 'up', amount: 1, x: 300, y: 400, modifiers: 'shift' }] },
      { method: 'scroll', args: [{ direction: 'left', amount: 1, x: 300, y: 400, modifiers: 'shift' }] },
      { method: 'type', args: ['hello'] },
      { method: 'screenshot', args: [] },
    ]);
    expect(sleeps).toEqual([1000]);
    expect(seen).toEqual(actions);
    expect(output).toMatchObject({
      type: 'computer_call_output',
      call_id: 'call_1',
      acknowledged_safety_checks: [],
      output: { type: 'computer_screenshot' },
    });
    const png = pngOf(output.output.image_url);
    expect([png.width, png.height]).toEqual([1280, 800]);
  });

  it('runs the single action of a call without actions', async () => {
    const desktop = new RecordingDesktop();
    const call = {
      type: 'computer_call',
      id: 'cu_2',
      call_id: 'call_2',
      status: 'completed',
      pending_safety_checks: [],
      action: { type: 'type', text: 'one' },
    } satisfies ResponseComputerToolCall;
    const output = await computerCallOutput(desktop, call);
    expect(desktop.methods()).toEqual(['type', 'screenshot']);
    expect(output.call_id).toBe('call_2');
  });

  it.each([
    ['CTRL', 'ctrl'],
    ['CONTROL', 'ctrl'],
    ['ALT', 'alt'],
    ['OPTION', 'alt'],
    ['SHIFT', 'shift'],
    ['CMD', 'super'],
    ['META', 'super'],
    ['SUPER', 'super'],
    ['WIN', 'super'],
    ['ENTER', 'Return'],
    ['RETURN', 'Return'],
    ['ESC', 'Escape'],
    ['ESCAPE', 'Escape'],
    ['SPACE', 'space'],
    [' ', 'space'],
    ['BACKSPACE', 'BackSpace'],
    ['TAB', 'Tab'],
    ['DELETE', 'Delete'],
    ['INSERT', 'Insert'],
    ['HOME', 'Home'],
    ['END', 'End'],
    ['PAGEUP', 'Page_Up'],
    ['PAGEDOWN', 'Page_Down'],
    ['ARROWUP', 'Up'],
    ['ARROWDOWN', 'Down'],
    ['ARROWLEFT', 'Left'],
    ['ARROWRIGHT', 'Right'],
    ['CAPSLOCK', 'Caps_Lock'],
    ['F1', 'F1'],
    ['f12', 'F12'],
    ['A', 'a'],
    ['z', 'z'],
    ['5', '5'],
    ['+', 'plus'],
    ['/', '/'],
  ])('keypress %j presses the desktop key %j', async (name, desktopName) => {
    expect(openaiKey(name)).toBe(desktopName);
    const desktop = new RecordingDesktop();
    await computerCallOutput(desktop, batch([{ type: 'keypress', keys: [name] }]));
    expect(desktop.calls[0]).toEqual({ method: 'key', args: [desktopName] });
  });

  it('does not run a call whose pending safety check was not acknowledged, and throws', async () => {
    const desktop = new RecordingDesktop();
    const checks = [
      { id: 'sc_1', code: 'malicious_instructions', message: 'The page asks to ignore the task.' },
      { id: 'sc_2', code: 'sensitive_domain', message: null },
    ];
    const call = batch([{ type: 'click', button: 'left', x: 1, y: 1 }], checks);

    const refused = computerCallOutput(desktop, call, { acknowledgedSafetyChecks: ['sc_1'] });

    await expect(refused).rejects.toBeInstanceOf(UnacknowledgedSafetyCheckError);
    await expect(refused).rejects.toMatchObject({
      callId: 'call_1',
      checks: [checks[1]],
      message:
        "Computer call call_1 was not run: its safety checks sc_2 (sensitive_domain) need a person's approval; pass the approved ones as acknowledgedSafetyChecks",
    });
    await expect(computerCallOutput(desktop, call)).rejects.toMatchObject({ checks });
    expect(desktop.calls).toEqual([]);

    const output = await computerCallOutput(desktop, call, {
      acknowledgedSafetyChecks: [checks[0]!, 'sc_2'],
    });
    expect(output.acknowledged_safety_checks).toEqual(checks);
    expect(desktop.methods()).toEqual(['click', 'screenshot']);
  });

  it('stops at the first failing action and throws its error, running nothing after it', async () => {
    const desktop = new RecordingDesktop();
    const failure = new RefusedByDesktop('invalid_request', 422, 'text is over 10,000 bytes');
    desktop.failNext('type', failure);
    const seen: string[] = [];
    const call = batch([
      { type: 'move', x: 1, y: 1 },
      { type: 'type', text: 'too long' },
      { type: 'keypress', keys: ['ENTER'] },
    ]);

    await expect(computerCallOutput(desktop, call, { onAction: (a) => void seen.push(a.type) })).rejects.toBe(
      failure,
    );
    expect(desktop.methods()).toEqual(['move', 'type']);
    expect(seen).toEqual(['move']);
  });

  it('releases the button when a drag along a path fails midway', async () => {
    const desktop = new RecordingDesktop();
    const call = batch([
      {
        type: 'drag',
        path: [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
          { x: 3, y: 3 },
        ],
      },
    ]);
    const failure = new RefusedByDesktop('no_desktop', 409, 'The desktop is not running: start it first');
    // The second move (the first point after pressing) fails.
    const move = desktop.move.bind(desktop);
    let moves = 0;
    desktop.move = async (point) => {
      moves += 1;
      if (moves === 2) throw failure;
      return move(point);
    };
    await expect(computerCallOutput(desktop, call)).rejects.toBe(failure);
    expect(desktop.methods()).toEqual(['move', 'mouseDown', 'mouseUp']);
  });

  it.each<[string, ComputerAction, RegExp]>([
    [
      'a held key that is not a modifier',
      { type: 'click', button: 'left', x: 1, y: 1, keys: ['A'] },
      /^keys: 'A' cannot be held/,
    ],
    [
      'an unknown button',
      { type: 'click', button: 'thumb' as 'left', x: 1, y: 1 },
      /^click: button must be one of left, right, wheel, back, forward/,
    ],
    ['a negative position', { type: 'move', x: -1, y: 5 }, /^x, y must be whole numbers/],
    [
      'keys held while moving',
      { type: 'move', x: 1, y: 1, keys: ['SHIFT'] },
      /^move: the desktop cannot hold keys/,
    ],
    [
      'keys held along a bent path',
      {
        type: 'drag',
        keys: ['SHIFT'],
        path: [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
          { x: 3, y: 1 },
        ],
      },
      /^drag: the desktop holds keys only during a straight drag; this path has 3 points/,
    ],
    ['a one-point path', { type: 'drag', path: [{ x: 1, y: 1 }] }, /^drag: path must have at least 2 points/],
    [
      'a scroll over 100 notches',
      { type: 'scroll', x: 1, y: 1, scroll_x: 0, scroll_y: 10_100 },
      /^scroll: scroll_y 10100 is 101 notches of 100 pixels; the desktop scrolls up to 100 at once/,
    ],
    ['an empty keypress', { type: 'keypress', keys: [] }, /^keypress: keys must be a non-empty array/],
  ])('refuses %s before calling the desktop', async (_, action, message) => {
    const desktop = new RecordingDesktop();
    const refused = computerCallOutput(desktop, batch([action]));
    await expect(refused).rejects.toBeInstanceOf(ComputerUseError);
    await expect(refused).rejects.toThrow(message);
    expect(desktop.calls).toEqual([]);
  });

  it('refuses a call with neither action nor actions', async () => {
    const call: ResponseComputerToolCall = {
      type: 'computer_call',
      id: 'cu_3',
      call_id: 'call_3',
      status: 'completed',
      pending_safety_checks: [],
    };
    await expect(computerCallOutput(new RecordingDesktop(), call)).rejects.toThrow(
      'Computer call call_3 has neither action nor actions',
    );
  });

  it('waits waitMs, 1000 by default, on a timer and without calling the desktop', async () => {
    vi.useFakeTimers();
    const desktop = new RecordingDesktop();
    let done = false;
    const running = computerCallOutput(desktop, batch([{ type: 'wait' }])).then((output) => {
      done = true;
      return output;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    expect(desktop.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await running;
    expect(desktop.methods()).toEqual(['screenshot']);

    const sleeps: number[] = [];
    await computerCallOutput(desktop, batch([{ type: 'wait' }, { type: 'wait' }]), {
      waitMs: 250,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(sleeps).toEqual([250, 250]);
  });

  it('sends a 2560x1600 screen at full size, positions unmapped (only adapter A shrinks)', async () => {
    const desktop = new RecordingDesktop({ width: 2560, height: 1600 });
    const output = await computerCallOutput(
      desktop,
      batch([{ type: 'click', button: 'left', x: 2559, y: 1599 }]),
      {
        sleep: noSleep,
      },
    );
    expect(desktop.calls[0]?.args[0]).toEqual({ x: 2559, y: 1599, button: 'left', count: 1 });
    const png = pngOf(output.output.image_url);
    expect([png.width, png.height]).toEqual([2560, 1600]);
  });
});
