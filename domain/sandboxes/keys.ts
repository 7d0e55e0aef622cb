import type { Checked } from './checked.ts';

// Key names for `key` and `hold` (spec, "Shared argument shapes": `keys`, `modifiers`), and the
// second adapter's key names (spec, "Computer-use adapters", adapter B).
//
// Our names are X keysym names, which xdotool takes as they are (`Return`, `BackSpace`, `Left`,
// `a`, `F5`); the four modifiers are xdotool's own aliases. Names longer than one character are
// matched without regard to case (`return` is `Return`), and a few common spellings are accepted
// as aliases (`Enter`, `Esc`, `PageUp`, `cmd`). Single characters keep their case: xdotool
// types `A` as shift+a.

export const modifiers = ['shift', 'ctrl', 'alt', 'super'] as const;
export type Modifier = (typeof modifiers)[number];

const letters = 'abcdefghijklmnopqrstuvwxyz';
const functionKeys = Array.from({ length: 24 }, (_, i) => `F${i + 1}`);

const namedKeys = [
  ...modifiers,
  ...functionKeys,
  ...'Return Escape Tab BackSpace Delete Insert Home End Page_Up Page_Down'.split(' '),
  ...'Left Right Up Down space'.split(' '),
  ...'Caps_Lock Num_Lock Scroll_Lock Print Pause Menu KP_Enter XF86Back XF86Forward XF86Reload'.split(' '),
  ...'XF86AudioMute XF86AudioLowerVolume XF86AudioRaiseVolume XF86AudioPlay'.split(' '),
];

// biome-ignore format: a table reads better in rows
/** Printable characters other than letters and digits, by their keysym name. */
const punctuation: Record<string, string> = {
  '-': 'minus', '=': 'equal', '+': 'plus', ',': 'comma', '.': 'period', '/': 'slash', '\\': 'backslash',
  ';': 'semicolon', "'": 'apostrophe', '"': 'quotedbl', '`': 'grave', '[': 'bracketleft', ']': 'bracketright',
  '{': 'braceleft', '}': 'braceright', '!': 'exclam', '@': 'at', '#': 'numbersign', $: 'dollar', '%': 'percent',
  '^': 'asciicircum', '&': 'ampersand', '*': 'asterisk', '(': 'parenleft', ')': 'parenright', _: 'underscore',
  ':': 'colon', '<': 'less', '>': 'greater', '?': 'question', '|': 'bar', '~': 'asciitilde', ' ': 'space',
};

// biome-ignore format: a table reads better in rows
/** Other spellings people and models use, by lowercase spelling. */
const aliases: Record<string, string> = {
  enter: 'Return', esc: 'Escape', del: 'Delete', ins: 'Insert', pageup: 'Page_Up', pgup: 'Page_Up',
  pagedown: 'Page_Down', pgdn: 'Page_Down', arrowleft: 'Left', arrowright: 'Right', arrowup: 'Up',
  arrowdown: 'Down', capslock: 'Caps_Lock', printscreen: 'Print', control: 'ctrl', cmd: 'super',
  command: 'super', meta: 'super', win: 'super', option: 'alt',
};

/** Every accepted spelling → the xdotool name. */
const xdotoolNames: ReadonlyMap<string, string> = new Map([
  ...[...letters, ...letters.toUpperCase(), ...'0123456789'].map((c): [string, string] => [c, c]),
  ...Object.entries(punctuation),
  ...Object.values(punctuation).map((name): [string, string] => [name.toLowerCase(), name]),
  ...namedKeys.map((name): [string, string] => [name.toLowerCase(), name]),
  ...Object.entries(aliases),
]);

const keyHint =
  'use a key name such as `Return`, `Escape`, `Tab`, `BackSpace`, `Left`, `a` or `F5`, and `+` between the keys of a combination';

/** One key → its xdotool name. */
export function parseKeyName(name: string): Checked<string> {
  const found =
    xdotoolNames.get(name) ?? (name.length > 1 ? xdotoolNames.get(name.toLowerCase()) : undefined);
  return found === undefined
    ? { ok: false, message: `\`${name}\` is not a key name: ${keyHint}` }
    : { ok: true, value: found };
}

/** `ctrl++` and `+` name the plus key. */
function splitCombination(combination: string): string[] {
  if (combination === '+') return ['+'];
  if (combination.endsWith('++')) return [...combination.slice(0, -2).split('+'), '+'];
  return combination.split('+');
}

/** A key or a combination (`ctrl+shift+t`) → xdotool's form of it. */
export function parseKeyCombination(combination: string): Checked<string> {
  const parts = splitCombination(combination);
  if (parts.some((part) => part === '')) {
    return { ok: false, message: `\`${combination}\` has an empty key between \`+\` signs: ${keyHint}` };
  }
  const names: string[] = [];
  for (const part of parts) {
    const key = parseKeyName(part);
    if (!key.ok) return key;
    names.push(key.value);
  }
  return { ok: true, value: names.join('+') };
}

/** `shift+ctrl` → `['shift', 'ctrl']`; each modifier once. */
export function parseModifiers(text: string): Checked<Modifier[]> {
  const found: Modifier[] = [];
  for (const part of text.toLowerCase().split('+')) {
    const modifier = modifiers.find((m) => m === part);
    if (modifier === undefined) {
      return {
        ok: false,
        message: `modifiers must be any of \`shift\`, \`ctrl\`, \`alt\`, \`super\` joined by \`+\`, not \`${text}\``,
      };
    }
    if (!found.includes(modifier)) found.push(modifier);
  }
  return { ok: true, value: found };
}

// biome-ignore format: a table reads better in rows
/**
 * Adapter B's `keypress` names (upper case, as that interface sends them) → ours. Names not in
 * the table are read as our own names; a single letter is lowered, since that interface writes
 * the `c` key as `C` and sends `SHIFT` when it means shift.
 */
export const adapterBKeys: Readonly<Record<string, string>> = {
  CTRL: 'ctrl', CONTROL: 'ctrl', SHIFT: 'shift', ALT: 'alt', OPTION: 'alt', META: 'super', SUPER: 'super',
  CMD: 'super', WIN: 'super', ENTER: 'Return', RETURN: 'Return', ESC: 'Escape', ESCAPE: 'Escape', TAB: 'Tab',
  SPACE: 'space', BACKSPACE: 'BackSpace', DELETE: 'Delete', INSERT: 'Insert', HOME: 'Home', END: 'End',
  PAGEUP: 'Page_Up', PAGEDOWN: 'Page_Down', ARROWLEFT: 'Left', ARROWRIGHT: 'Right', ARROWUP: 'Up',
  ARROWDOWN: 'Down', LEFT: 'Left', RIGHT: 'Right', UP: 'Up', DOWN: 'Down', CAPSLOCK: 'Caps_Lock',
};

/** One adapter B `keypress` (its keys pressed together) → one combination in our names. */
export function translateAdapterBKeys(keys: readonly string[]): Checked<string> {
  if (keys.length === 0) return { ok: false, message: 'keypress needs at least one key' };
  const ours = keys.map(
    (key) => adapterBKeys[key.toUpperCase()] ?? (/^[A-Z]$/.test(key) ? key.toLowerCase() : key),
  );
  return parseKeyCombination(ours.join('+'));
}
