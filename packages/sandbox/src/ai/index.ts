// Adapter C (spec 002): the desktop as AI SDK tools (`ai` 7), for any model the SDK drives.
//
//   const result = await generateText({ model, tools: computerTools(sandbox.desktop), stopWhen: isStepCount(20), prompt });

import { tool } from 'ai';
import { z } from 'zod';
import { toBase64 } from '../computer-use/base64.js';
import { desktopKeys, desktopModifiers } from '../computer-use/keys.js';
import type { DesktopActions } from '../desktop-types.js';

export { ComputerUseError } from '../computer-use/errors.js';

/** What the `screenshot` tool returns; the model is shown the PNG itself. */
export interface ScreenshotOutput {
  /** The PNG, base64. */
  data: string;
  mediaType: 'image/png';
  width: number;
  height: number;
}

const position = {
  x: z.number().int().min(0).describe('Pixels from the left edge of the screenshot'),
  y: z.number().int().min(0).describe('Pixels from the top edge of the screenshot'),
};
const point = z.object(position);
const modifiers = z
  .string()
  .regex(/^[a-z]+(\+[a-z]+)*$/i)
  .optional()
  .describe('Keys held during the action: shift, ctrl, alt or super, joined by + (ctrl+shift)');

const OK = 'OK';

/**
 * The tools `screenshot`, `click`, `type`, `key`, `scroll`, `move` and `drag` on `desktop`. The AI SDK
 * runs the tool calls of one step at once; these run one after another, in the order they are
 * called (the model's), as each acts on the one screen: a `type` sent with the `click` that focuses a
 * field would otherwise race it.
 */
export function computerTools(desktop: DesktopActions) {
  const inTurn = oneAtATime();
  return {
    screenshot: tool({
      description:
        'Take a screenshot of the whole screen. Positions in other tools are pixels of this image.',
      inputSchema: z.object({}),
      execute: (): Promise<ScreenshotOutput> =>
        inTurn(async () => {
          const shot = await desktop.screenshot();
          return {
            data: toBase64(shot.bytes),
            mediaType: 'image/png',
            width: shot.width,
            height: shot.height,
          };
        }),
      toModelOutput: ({ output }) => ({
        type: 'content',
        value: [
          { type: 'text', text: `The screen, ${output.width}x${output.height} pixels:` },
          { type: 'file', mediaType: output.mediaType, data: { type: 'data', data: output.data } },
        ],
      }),
    }),
    click: tool({
      description: 'Click a mouse button at a position.',
      inputSchema: z.object({
        ...position,
        button: z.enum(['left', 'middle', 'right']).default('left'),
        count: z
          .number()
          .int()
          .min(1)
          .max(3)
          .default(1)
          .describe('2 for a double click, 3 for a triple click'),
        modifiers,
      }),
      execute: ({ x, y, button, count, modifiers }) =>
        inTurn(async () => {
          await desktop.click({ x, y, button, count: count as 1 | 2 | 3, ...held(modifiers) });
          return OK;
        }),
    }),
    type: tool({
      description: 'Type text at the keyboard focus.',
      inputSchema: z.object({ text: z.string().min(1) }),
      execute: ({ text }) =>
        inTurn(async () => {
          await desktop.type(text);
          return OK;
        }),
    }),
    key: tool({
      description:
        'Press a key or combination (Return, Escape, Tab, BackSpace, Left, Page_Down, F5, ctrl+c, ctrl+shift+t); several separated by spaces are pressed in turn.',
      inputSchema: z.object({
        keys: z.string().min(1),
        repeat: z.number().int().min(1).max(100).optional().describe('Times to press them, 1 by default'),
      }),
      execute: ({ keys, repeat }) =>
        inTurn(async () => {
          const pressed = desktopKeys(keys, 'keys');
          if (repeat === undefined) await desktop.key(pressed);
          else await desktop.key(pressed, { repeat });
          return OK;
        }),
    }),
    scroll: tool({
      description: 'Scroll the mouse wheel at a position, in notches.',
      inputSchema: z.object({
        ...position,
        direction: z.enum(['up', 'down', 'left', 'right']),
        amount: z.number().int().min(1).max(100).default(3).describe('Wheel notches'),
        modifiers,
      }),
      execute: ({ x, y, direction, amount, modifiers }) =>
        inTurn(async () => {
          await desktop.scroll({ direction, amount, x, y, ...held(modifiers) });
          return OK;
        }),
    }),
    move: tool({
      description: 'Move the pointer to a position without clicking, to hover.',
      inputSchema: point,
      execute: ({ x, y }) =>
        inTurn(async () => {
          await desktop.move({ x, y });
          return OK;
        }),
    }),
    drag: tool({
      description: 'Press the left button at one position, move to another and release it.',
      inputSchema: z.object({ from: point, to: point, modifiers }),
      execute: ({ from, to, modifiers }) =>
        inTurn(async () => {
          await desktop.drag({ from, to, ...held(modifiers) });
          return OK;
        }),
    }),
  };
}

export type ComputerTools = ReturnType<typeof computerTools>;

/** Runs the tasks handed to it one at a time, in the order handed, whether or not earlier ones failed. */
function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = last.then(task);
    last = next.catch(() => undefined);
    return next;
  };
}

function held(value: string | undefined): { modifiers?: string } {
  const modifiers = value === undefined ? undefined : desktopModifiers(value.split('+'), 'modifiers');
  return modifiers === undefined ? {} : { modifiers };
}
