import { z } from 'zod';
import { checkedString, intIn, textUpToBytes } from './fields.ts';
import { parseKeyCombination, parseModifiers } from './keys.ts';

// The body of `POST …/desktop/input` (spec, "Input actions" and "Desktop methods of the client
// package"; "Limits"). Positions are checked against the screen's size when it is known
// (screen-geometry.ts, `positionOutsideScreen`); here they are only whole pixels, 0 or more.

export const inputLimits = {
  clickCount: { min: 1, max: 3, default: 1 },
  scrollAmount: { min: 1, max: 100, default: 3 },
  typeBytes: 10_000,
  keys: 50,
  keyRepeat: { min: 1, max: 100, default: 1 },
  holdSeconds: { min: 0, max: 300 },
  urls: { min: 1, max: 20 },
} as const;

const position = z
  .int('send a whole number of pixels, 0 or more')
  .min(0, 'send a whole number of pixels, 0 or more');
const modifiers = checkedString(parseModifiers);

/** A key or a combination, or an array of them, each pressed in turn; always an array once parsed. */
const keys = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z
    .array(checkedString(parseKeyCombination), 'send a key name such as `Return`, or an array of up to 50')
    .min(1, 'send at least one key')
    .max(inputLimits.keys, `send at most ${inputLimits.keys} keys`),
);

const httpUrl = z.url({ protocol: /^https?$/, error: 'send an `http` or `https` URL' });

/** `x` and `y` come together or not at all (at the pointer). */
function bothOrNeither(
  value: { x?: number | undefined; y?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if ((value.x === undefined) === (value.y === undefined)) return;
  const missing = value.x === undefined ? 'x' : 'y';
  // `input: undefined` marks the field as missing (parse.ts).
  ctx.addIssue({
    code: 'custom',
    path: [missing],
    input: undefined,
    message: 'send both `x` and `y`, or neither to act at the pointer',
  });
}

const { clickCount, scrollAmount, keyRepeat, holdSeconds, urls } = inputLimits;

export const clickInput = z
  .strictObject({
    action: z.literal('click'),
    x: position.optional(),
    y: position.optional(),
    button: z.enum(['left', 'middle', 'right']).default('left'),
    count: intIn(clickCount.min, clickCount.max).default(clickCount.default),
    modifiers: modifiers.optional(),
  })
  .superRefine(bothOrNeither);

export const moveInput = z.strictObject({ action: z.literal('move'), x: position, y: position });
export const downInput = z.strictObject({ action: z.literal('down') });
export const upInput = z.strictObject({ action: z.literal('up') });

export const dragInput = z.strictObject({
  action: z.literal('drag'),
  x: position,
  y: position,
  to_x: position,
  to_y: position,
  modifiers: modifiers.optional(),
});

export const scrollInput = z
  .strictObject({
    action: z.literal('scroll'),
    direction: z.enum(['up', 'down', 'left', 'right']),
    amount: intIn(scrollAmount.min, scrollAmount.max).default(scrollAmount.default),
    x: position.optional(),
    y: position.optional(),
    modifiers: modifiers.optional(),
  })
  .superRefine(bothOrNeither);

export const typeInput = z.strictObject({
  action: z.literal('type'),
  text: textUpToBytes(inputLimits.typeBytes),
});

export const keyInput = z.strictObject({
  action: z.literal('key'),
  keys,
  repeat: intIn(keyRepeat.min, keyRepeat.max).default(keyRepeat.default),
});

const holdRule = `send a number of seconds from ${holdSeconds.min} to ${holdSeconds.max}`;

/** Fractions of a second are allowed: a model may hold a key for half a second. */
export const holdInput = z.strictObject({
  action: z.literal('hold'),
  keys,
  seconds: z.number(holdRule).min(holdSeconds.min, holdRule).max(holdSeconds.max, holdRule),
});

export const cursorInput = z.strictObject({ action: z.literal('cursor') });

export const openInput = z.strictObject({
  action: z.literal('open'),
  urls: z
    .array(httpUrl, `send an array of ${urls.min} to ${urls.max} \`http\` or \`https\` URLs`)
    .min(urls.min, `send ${urls.min} to ${urls.max} URLs`)
    .max(urls.max, `send ${urls.min} to ${urls.max} URLs`),
});

export const inputAction = z.discriminatedUnion('action', [
  clickInput,
  moveInput,
  downInput,
  upInput,
  dragInput,
  scrollInput,
  typeInput,
  keyInput,
  holdInput,
  cursorInput,
  openInput,
]);
export type InputAction = z.output<typeof inputAction>;
export type InputActionName = InputAction['action'];

/** The answer: `{ done: <action> }`, or the pointer's position for `cursor`. */
export type InputResult = { done: Exclude<InputActionName, 'cursor'> } | { x: number; y: number };
