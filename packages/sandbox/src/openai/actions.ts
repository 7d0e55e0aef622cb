// Each action of OpenAI's computer tool (`ComputerAction`, Responses API) on a desktop. The tables
// below are the translations: mouse buttons, key names, and scroll pixels to wheel notches.

import type { ComputerAction } from 'openai/resources/responses/responses';
import { ComputerUseError } from '../computer-use/errors.js';
import { desktopKey, desktopModifiers } from '../computer-use/keys.js';
import type { Sleep } from '../computer-use/wait.js';
import type { DesktopActions, MouseButton, Point, ScrollDirection } from '../desktop-types.js';

/**
 * Pixels of `scroll_x` / `scroll_y` per wheel notch. OpenAI's scroll distances are pixels; the
 * desktop scrolls in notches, and a browser moves about 100 pixels per notch (Chromium on Windows and
 * macOS; 53 on Linux X11, where the model's distance then scrolls about half as far).
 */
export const SCROLL_PIXELS_PER_NOTCH = 100;

/** The most notches one desktop scroll takes (spec 002, scroll amount 1 to 100). */
export const MAX_SCROLL_NOTCHES = 100;

type ClickButton = ComputerAction.Click['button'];

/**
 * OpenAI's mouse buttons on the desktop, which has left, middle and right. `wheel` is the middle
 * button. The desktop has no back or forward button: browsers and file managers bind the same
 * navigation to alt+Left and alt+Right, so those are pressed with the pointer moved to the click's
 * position.
 */
const BUTTONS: Readonly<Record<ClickButton, { button: MouseButton } | { key: string }>> = {
  left: { button: 'left' },
  right: { button: 'right' },
  wheel: { button: 'middle' },
  back: { key: 'Left' },
  forward: { key: 'Right' },
};

/** OpenAI's key name as the desktop's: a single letter in lower case (`A` is the a key), others by the table. */
export function openaiKey(name: string): string {
  return /^[A-Za-z]$/.test(name) ? name.toLowerCase() : desktopKey(name);
}

export async function perform(
  desktop: DesktopActions,
  action: ComputerAction,
  wait: { ms: number; sleep: Sleep },
): Promise<void> {
  switch (action.type) {
    case 'click':
      return click(desktop, action);
    case 'double_click':
      return desktop.click({ ...point(action), button: 'left', count: 2, ...held(action.keys) });
    case 'drag':
      return drag(desktop, action);
    case 'keypress':
      return desktop.key(combination(action.keys));
    case 'move':
      if (held(action.keys).modifiers !== undefined) {
        throw new ComputerUseError('move: the desktop cannot hold keys while only moving the pointer');
      }
      return desktop.move(point(action));
    case 'screenshot':
      // The output's screenshot is taken after the last action; one in between would be thrown away.
      return;
    case 'scroll':
      return scroll(desktop, action);
    case 'type':
      if (typeof action.text !== 'string') throw new ComputerUseError('type: text must be a string');
      return desktop.type(action.text);
    case 'wait':
      return wait.sleep(wait.ms);
    default: {
      const unknown: never = action;
      throw new ComputerUseError(
        `Unknown computer action type ${JSON.stringify((unknown as { type: unknown }).type)}`,
      );
    }
  }
}

async function click(desktop: DesktopActions, action: ComputerAction.Click): Promise<void> {
  const mapped = Object.hasOwn(BUTTONS, action.button) ? BUTTONS[action.button] : undefined;
  if (mapped === undefined) {
    throw new ComputerUseError(
      `click: button must be one of ${Object.keys(BUTTONS).join(', ')}; got ${JSON.stringify(action.button)}`,
    );
  }
  const at = point(action);
  const modifiers = held(action.keys).modifiers;
  if ('button' in mapped) {
    return desktop.click({ ...at, button: mapped.button, count: 1, ...(modifiers ? { modifiers } : {}) });
  }
  await desktop.move(at);
  const keys = new Set([...(modifiers ? modifiers.split('+') : []), 'alt', mapped.key]);
  await desktop.key([...keys].join('+'));
}

/**
 * A drag along `path`: a straight drag for two points (held keys allowed); for more, the left button
 * is pressed at the first point, the pointer moved through each of the others, and released at the
 * last (released also when a move fails). The desktop holds keys only during a straight drag.
 */
async function drag(desktop: DesktopActions, action: ComputerAction.Drag): Promise<void> {
  const path = Array.isArray(action.path)
    ? action.path.map((p, index) => point(p, `drag: path[${index}]`))
    : [];
  if (path.length < 2) throw new ComputerUseError('drag: path must have at least 2 points');
  const modifiers = held(action.keys).modifiers;
  const [from, ...rest] = path as [Point, ...Point[]];
  if (rest.length === 1) {
    return desktop.drag({ from, to: rest[0]!, ...(modifiers ? { modifiers } : {}) });
  }
  if (modifiers) {
    throw new ComputerUseError(
      `drag: the desktop holds keys only during a straight drag; this path has ${path.length} points`,
    );
  }
  await desktop.move(from);
  await desktop.mouseDown();
  try {
    for (const next of rest) await desktop.move(next);
  } catch (error) {
    // Not left holding the button; the move's error is the one reported.
    await desktop.mouseUp().catch(() => {});
    throw error;
  }
  await desktop.mouseUp();
}

async function scroll(desktop: DesktopActions, action: ComputerAction.Scroll): Promise<void> {
  const at = point(action);
  const modifiers = held(action.keys).modifiers;
  const axes: Array<[number, ScrollDirection, ScrollDirection, string]> = [
    [action.scroll_y, 'down', 'up', 'scroll_y'],
    [action.scroll_x, 'right', 'left', 'scroll_x'],
  ];
  for (const [pixels, positive, negative, field] of axes) {
    if (typeof pixels !== 'number' || !Number.isInteger(pixels)) {
      throw new ComputerUseError(
        `scroll: ${field} must be a whole number of pixels; got ${JSON.stringify(pixels)}`,
      );
    }
    if (pixels === 0) continue;
    const amount = Math.max(1, Math.round(Math.abs(pixels) / SCROLL_PIXELS_PER_NOTCH));
    if (amount > MAX_SCROLL_NOTCHES) {
      throw new ComputerUseError(
        `scroll: ${field} ${pixels} is ${amount} notches of ${SCROLL_PIXELS_PER_NOTCH} pixels; the desktop scrolls up to ${MAX_SCROLL_NOTCHES} at once`,
      );
    }
    await desktop.scroll({
      direction: pixels > 0 ? positive : negative,
      amount,
      ...at,
      ...(modifiers ? { modifiers } : {}),
    });
  }
}

function combination(keys: readonly string[]): string {
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string' && k !== '')) {
    throw new ComputerUseError(
      `keypress: keys must be a non-empty array of key names; got ${JSON.stringify(keys)}`,
    );
  }
  return keys.map(openaiKey).join('+');
}

function held(keys: readonly string[] | null | undefined): { modifiers?: string } {
  if (keys === undefined || keys === null) return {};
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
    throw new ComputerUseError(`keys must be an array of key names; got ${JSON.stringify(keys)}`);
  }
  const modifiers = desktopModifiers(keys, 'keys');
  return modifiers === undefined ? {} : { modifiers };
}

function point(value: { x: number; y: number }, field = 'x, y'): Point {
  const { x, y } = value;
  const whole = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  if (!whole(x) || !whole(y)) {
    throw new ComputerUseError(
      `${field} must be whole numbers of pixels from the top left; got ${JSON.stringify({ x, y })}`,
    );
  }
  return { x, y };
}
