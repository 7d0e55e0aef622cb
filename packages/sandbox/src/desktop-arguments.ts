import type {
  AccessibilityAction,
  AccessibilityTreeOptions,
  ClickOptions,
  DragOptions,
  Keys,
  Point,
  Region,
  ScrollOptions,
} from './desktop-types.js';
import { invalidArgument, missingArgument } from './errors.js';
import type { paths } from './openapi.generated.js';

// The desktop methods' arguments checked against spec 002's limits ("Desktop methods of the
// client package", "Shared argument shapes", "Limits") and turned into the API's bodies and
// queries. A value out of range is refused, never clamped, before any request is sent; `param`
// names the method's own argument (`from.x`, `keys[2]`, `includeHidden`). Key names and
// positions inside the screen are the API's to check: it knows the names and the screen's size.

export const desktopLimits = {
  resolution: { width: { min: 320, max: 1920 }, height: { min: 240, max: 1080 } },
  clickCount: { min: 1, max: 3 },
  scrollAmount: { min: 1, max: 100 },
  keys: 50,
  keyRepeat: { min: 1, max: 100 },
  holdSeconds: { min: 0, max: 300 },
  typeBytes: 10_000,
  urls: { min: 1, max: 20 },
  accessibilityDepth: { min: 1, max: 200 },
} as const;

export const mouseButtons = ['left', 'middle', 'right'] as const;
export const scrollDirections = ['up', 'down', 'left', 'right'] as const;
export const modifierNames = ['shift', 'ctrl', 'alt', 'super'] as const;

type InputBody =
  paths['/api/sandboxes/{id}/desktop/input']['post']['requestBody']['content']['application/json'];
type Input<A extends InputBody['action']> = Extract<InputBody, { action: A }>;
type TreeQuery = NonNullable<
  paths['/api/sandboxes/{id}/desktop/accessibility']['get']['parameters']['query']
>;
type ActBody =
  paths['/api/sandboxes/{id}/desktop/accessibility']['post']['requestBody']['content']['application/json'];

const quoted = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(', ');

function intIn(param: string, value: unknown, min: number, max: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  throw invalidArgument(param, `send an integer from ${min} to ${max}`);
}

function pixel(param: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (value === undefined) throw missingArgument(param, 'send a whole number of pixels, 0 or more');
  throw invalidArgument(param, 'send a whole number of pixels, 0 or more');
}

function oneOf<T extends string>(param: string, value: unknown, allowed: readonly T[]): T {
  const found = allowed.find((candidate) => candidate === value);
  if (found !== undefined) return found;
  if (value === undefined) throw missingArgument(param, `send one of ${quoted(allowed)}`);
  throw invalidArgument(param, `send one of ${quoted(allowed)}`);
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

function textUpTo(param: string, value: unknown, maxBytes: number): string {
  const rule = `send a string of at most ${maxBytes.toLocaleString('en-US')} bytes of UTF-8`;
  if (typeof value !== 'string') throw (value === undefined ? missingArgument : invalidArgument)(param, rule);
  if (utf8Bytes(value) > maxBytes) throw invalidArgument(param, rule);
  return value;
}

/** `WIDTHxHEIGHT`, width 320 to 1920, height 240 to 1080. */
export function checkResolution(resolution: unknown): string {
  const { width, height } = desktopLimits.resolution;
  const rule = `send \`WIDTHxHEIGHT\` with a width from ${width.min} to ${width.max} and a height from ${height.min} to ${height.max}, such as \`1280x800\``;
  const match = typeof resolution === 'string' ? /^(\d{1,5})x(\d{1,5})$/.exec(resolution) : null;
  const [w, h] = [Number(match?.[1]), Number(match?.[2])];
  if (!match || w < width.min || w > width.max || h < height.min || h > height.max)
    throw invalidArgument('resolution', rule);
  return match[0];
}

/** `[x0, y0, x1, y1]` → the screenshot query's `x0,y0,x1,y1`. */
export function regionQuery(region: Region | undefined): string | undefined {
  if (region === undefined) return undefined;
  const rule = 'send `[x0, y0, x1, y1]`, four whole pixels with x1 > x0 and y1 > y0';
  if (!Array.isArray(region) || region.length !== 4) throw invalidArgument('region', rule);
  const corners = region.map((value: unknown) => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    throw invalidArgument('region', rule);
  });
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = corners;
  if (x1 <= x0 || y1 <= y0) throw invalidArgument('region', rule);
  return corners.join(',');
}

/** Any of `shift`, `ctrl`, `alt`, `super` joined by `+` (in any case, as the API reads them). */
function checkModifiers(modifiers: unknown): string | undefined {
  if (modifiers === undefined) return undefined;
  const names: readonly string[] = modifierNames;
  if (
    typeof modifiers === 'string' &&
    modifiers.split('+').every((part) => names.includes(part.toLowerCase()))
  )
    return modifiers;
  throw invalidArgument(
    'modifiers',
    `send any of ${quoted(modifierNames)} joined by \`+\`, such as \`ctrl+shift\``,
  );
}

/** `x` and `y` together or not at all (at the pointer). */
function optionalPosition(x: unknown, y: unknown): { x?: number; y?: number } {
  if (x === undefined && y === undefined) return {};
  const rule = 'send both `x` and `y`, or neither to act at the pointer';
  if (x === undefined) throw missingArgument('x', rule);
  if (y === undefined) throw missingArgument('y', rule);
  return { x: pixel('x', x), y: pixel('y', y) };
}

function point(param: string, value: Point | undefined): Point {
  if (typeof value !== 'object' || value === null) throw missingArgument(param, 'send `{ x, y }` in pixels');
  return { x: pixel(`${param}.x`, value.x), y: pixel(`${param}.y`, value.y) };
}

export function clickBody(options: ClickOptions = {}): Input<'click'> {
  const { min, max } = desktopLimits.clickCount;
  return {
    action: 'click',
    ...optionalPosition(options.x, options.y),
    ...(options.button === undefined ? {} : { button: oneOf('button', options.button, mouseButtons) }),
    ...(options.count === undefined ? {} : { count: intIn('count', options.count, min, max) }),
    ...(options.modifiers === undefined ? {} : { modifiers: checkModifiers(options.modifiers) }),
  };
}

export function moveBody(position: Point): Input<'move'> {
  return { action: 'move', x: pixel('x', position?.x), y: pixel('y', position?.y) };
}

export function dragBody(options: DragOptions): Input<'drag'> {
  const from = point('from', options?.from);
  const to = point('to', options?.to);
  const modifiers = checkModifiers(options?.modifiers);
  return {
    action: 'drag',
    x: from.x,
    y: from.y,
    to_x: to.x,
    to_y: to.y,
    ...(modifiers ? { modifiers } : {}),
  };
}

export function scrollBody(options: ScrollOptions): Input<'scroll'> {
  const { min, max } = desktopLimits.scrollAmount;
  const modifiers = checkModifiers(options?.modifiers);
  return {
    action: 'scroll',
    direction: oneOf('direction', options?.direction, scrollDirections),
    ...(options.amount === undefined ? {} : { amount: intIn('amount', options.amount, min, max) }),
    ...optionalPosition(options.x, options.y),
    ...(modifiers ? { modifiers } : {}),
  };
}

export function typeBody(text: string): Input<'type'> {
  return { action: 'type', text: textUpTo('text', text, desktopLimits.typeBytes) };
}

/** A key or combination, or an array of 1 to 50 pressed in turn; each a non-empty string. */
function checkKeys(keys: Keys): string[] {
  const list: readonly unknown[] = typeof keys === 'string' ? [keys] : Array.isArray(keys) ? keys : [];
  const rule = `send a key name such as \`Return\` or \`ctrl+c\`, or an array of 1 to ${desktopLimits.keys}`;
  if (list.length === 0 || list.length > desktopLimits.keys)
    throw (keys === undefined ? missingArgument : invalidArgument)('keys', rule);
  return list.map((key, index) => {
    if (typeof key === 'string' && key !== '') return key;
    throw invalidArgument(typeof keys === 'string' ? 'keys' : `keys[${index}]`, rule);
  });
}

export function keyBody(keys: Keys, options: { repeat?: number } = {}): Input<'key'> {
  const { min, max } = desktopLimits.keyRepeat;
  return {
    action: 'key',
    keys: checkKeys(keys),
    ...(options.repeat === undefined ? {} : { repeat: intIn('repeat', options.repeat, min, max) }),
  };
}

export function holdBody(keys: Keys, seconds: number): Input<'hold'> {
  const { min, max } = desktopLimits.holdSeconds;
  const checked = checkKeys(keys);
  const rule = `send a number of seconds from ${min} to ${max}`;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < min || seconds > max)
    throw (seconds === undefined ? missingArgument : invalidArgument)('seconds', rule);
  return { action: 'hold', keys: checked, seconds };
}

function isWebUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

export function openBody(urls: string | readonly string[]): Input<'open'> {
  const { min, max } = desktopLimits.urls;
  const list: readonly unknown[] = typeof urls === 'string' ? [urls] : Array.isArray(urls) ? urls : [];
  const rule = `send ${min} to ${max} \`http\` or \`https\` URLs`;
  if (list.length < min || list.length > max) throw invalidArgument('urls', rule);
  const checked = list.map((url, index) => {
    if (typeof url === 'string' && isWebUrl(url)) return url;
    throw invalidArgument(typeof urls === 'string' ? 'urls' : `urls[${index}]`, rule);
  });
  return { action: 'open', urls: checked };
}

export function treeQuery(options: AccessibilityTreeOptions = {}): TreeQuery {
  const { min, max } = desktopLimits.accessibilityDepth;
  const query: TreeQuery = {};
  if (options.app !== undefined) {
    if (typeof options.app !== 'string' || options.app === '')
      throw invalidArgument('app', 'send the name of an application');
    query.app = options.app;
  }
  if (options.depth !== undefined) query.depth = String(intIn('depth', options.depth, min, max));
  if (options.includeHidden !== undefined) {
    if (typeof options.includeHidden !== 'boolean')
      throw invalidArgument('includeHidden', 'send `true` or `false`');
    query.include_hidden = options.includeHidden ? 'true' : 'false';
  }
  return query;
}

export function actBody(act: AccessibilityAction): ActBody {
  if (typeof act?.ref !== 'string' || act.ref === '')
    throw missingArgument('ref', 'send a ref from the tree, such as `e12`');
  if (typeof act.action !== 'string' || act.action === '')
    throw missingArgument('action', 'send `press`, `focus`, `set-text`, `read`, or an action the node lists');
  if (act.text === undefined) {
    if (act.action === 'set-text') throw missingArgument('text', 'send the text to set with `set-text`');
    return { ref: act.ref, action: act.action };
  }
  return { ref: act.ref, action: act.action, text: textUpTo('text', act.text, desktopLimits.typeBytes) };
}
