// Key names as the models write them, translated to the desktop's (X keysym names such as `Return`,
// `BackSpace`, `Left`, `Page_Up`, and the modifiers `shift`, `ctrl`, `alt`, `super`). One table for
// every adapter: Anthropic's names are case-insensitive X names ("return", "Page_Down"), OpenAI's are
// upper case web names ("ENTER", "ARROWLEFT", "CMD").

import type { Keys } from '../desktop-types.js';
import { ComputerUseError } from './errors.js';

/** The modifiers the desktop holds during a click, drag or scroll. */
export const MODIFIERS = ['shift', 'ctrl', 'alt', 'super'] as const;
export type Modifier = (typeof MODIFIERS)[number];

/** Every alias, lower case, and the desktop's name for it. Names not listed pass through unchanged. */
const KEY_NAMES: Readonly<Record<string, string>> = {
  // modifiers
  shift: 'shift',
  shift_l: 'shift',
  ctrl: 'ctrl',
  control: 'ctrl',
  control_l: 'ctrl',
  alt: 'alt',
  alt_l: 'alt',
  option: 'alt',
  super: 'super',
  super_l: 'super',
  meta: 'super',
  cmd: 'super',
  command: 'super',
  win: 'super',
  windows: 'super',
  // editing and whitespace
  return: 'Return',
  enter: 'Return',
  tab: 'Tab',
  space: 'space',
  backspace: 'BackSpace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  escape: 'Escape',
  esc: 'Escape',
  capslock: 'Caps_Lock',
  caps_lock: 'Caps_Lock',
  // navigation
  up: 'Up',
  arrowup: 'Up',
  down: 'Down',
  arrowdown: 'Down',
  left: 'Left',
  arrowleft: 'Left',
  right: 'Right',
  arrowright: 'Right',
  home: 'Home',
  end: 'End',
  page_up: 'Page_Up',
  pageup: 'Page_Up',
  prior: 'Page_Up',
  page_down: 'Page_Down',
  pagedown: 'Page_Down',
  next: 'Page_Down',
  // single characters that are not their own X name
  ' ': 'space',
  '+': 'plus',
  // others
  print: 'Print',
  printscreen: 'Print',
  menu: 'Menu',
};

const FUNCTION_KEY = /^f([1-9]|1[0-9]|2[0-4])$/i;

/** The desktop's name for one key (no `+`): aliases from the table, `F1`-`F24`, others unchanged. */
export function desktopKey(name: string): string {
  const lower = name.toLowerCase();
  const known = Object.hasOwn(KEY_NAMES, lower) ? KEY_NAMES[lower] : undefined;
  if (known !== undefined) return known;
  const fn = FUNCTION_KEY.exec(name);
  if (fn) return `F${fn[1]}`;
  return name;
}

/** A combination written `ctrl+shift+t` with each key's desktop name. */
export function desktopCombination(combination: string, field: string): string {
  const parts = combination.split('+');
  if (parts.some((part) => part.trim() === '')) {
    throw new ComputerUseError(
      `${field} '${combination}' has an empty key name: join keys with + and write the + key as 'plus'`,
    );
  }
  return parts.map((part) => desktopKey(part.trim())).join('+');
}

/**
 * Keys written as one key or combination (`ctrl+s`), or several separated by spaces and pressed in
 * turn (`Down Down Return`), each key by its desktop name.
 */
export function desktopKeys(text: string, field: string): Keys {
  const names = text
    .trim()
    .split(/\s+/)
    .map((combination) => desktopCombination(combination, field));
  return names.length === 1 ? names[0]! : names;
}

/** Held keys as the desktop's `modifiers` (`ctrl+shift`); `undefined` for none. Other keys are refused. */
export function desktopModifiers(names: readonly string[], field: string): string | undefined {
  const modifiers = names.map((name) => {
    const key = desktopKey(name.trim());
    if (!(MODIFIERS as readonly string[]).includes(key)) {
      throw new ComputerUseError(
        `${field}: '${name}' cannot be held during this action; only ${MODIFIERS.join(', ')} can`,
      );
    }
    return key;
  });
  return modifiers.length > 0 ? modifiers.join('+') : undefined;
}
