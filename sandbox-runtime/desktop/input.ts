import { readFileSync } from 'node:fs';
import type { InputAction } from '../../domain/sandboxes/input-actions.ts';
import type { Modifier } from '../../domain/sandboxes/keys.ts';
import { quote, shellWords } from './shell.ts';

// The spec's "Input actions" as xdotool commands run inside the sandbox (`open` goes through
// the browser's DevTools instead: index.ts). Key names arrive as xdotool's own names
// (domain/sandboxes/keys.ts translated them while parsing); each action is one shell script, so
// the modifiers it holds are released even when the action fails.
//
// Decisions where the spec is silent:
// - click: `count` clicks 100 ms apart (a double click for every toolkit's threshold), at x,y
//   after moving there, or where the pointer is; buttons left 1, middle 2, right 3.
// - drag: press at x,y, move halfway then to to_x,to_y with 50 ms pauses (toolkits start a drag
//   on motion with the button down), release; `modifiers` held throughout.
// - scroll: `amount` wheel notches, X buttons 4 up, 5 down, 6 left, 7 right, 20 ms apart.
// - type: the text as it is, newlines as Return, tabs as Tab, in chunks of 200 characters with
//   1 ms between keys: about 2.4 ms a character, 10,000 in 24 s, a pace Chromium keeps up
//   with, so what `type` answered is on the page (without it xdotool was done in 13 s and the
//   page 10 s later). Characters beyond the US keyboard are first bound to spare keycodes, 16
//   at a time (keymap.py says why: left to xdotool, Chromium loses some of them).
// - key: each key or combination in turn, the whole list `repeat` times, 25 ms apart.
// - hold: all keys down in order, held for `seconds`, released in reverse order.

const buttons = { left: 1, middle: 2, right: 3 } as const;
const wheel = { up: 4, down: 5, left: 6, right: 7 } as const;

export const typing = {
  chunkCharacters: 200,
  keyDelayMs: 1,
  /** Xvfb's keymap leaves 19 keycodes free; one stays xdotool's scratch key. */
  bindBatch: 16,
  /** Time for the browser to read the changed keymap. */
  settleSeconds: 0.05,
} as const;

export interface InputScript {
  script: string;
  timeoutSeconds: number;
}

/** A command line that holds `modifiers` while `body` runs, and releases them whatever happens. */
function holding(modifiers: readonly Modifier[] | undefined, body: string): string {
  if (!modifiers || modifiers.length === 0) return body;
  const release = shellWords(['xdotool', 'keyup', ...[...modifiers].reverse()]);
  return `trap '${release.replaceAll("'", `'\\''`)}' EXIT; ${shellWords(['xdotool', 'keydown', ...modifiers])} && ${body}`;
}

function at(x: number | undefined, y: number | undefined): (string | number)[] {
  return x === undefined || y === undefined ? [] : ['mousemove', x, y];
}

/** Text in chunks of whole characters (a surrogate pair stays together). */
export function chunks(text: string, size: number): string[] {
  const characters = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < characters.length; i += size) out.push(characters.slice(i, i + size).join(''));
  return out;
}

/** Characters xdotool finds on Xvfb's US keyboard (newline is Return, tab is Tab). */
const onKeyboard = /^[\x20-\x7e\n\t]$/;

export interface TypingBatch {
  text: string;
  /** Codepoints to bind to spare keycodes before typing `text` (keymap.py). */
  bind: number[];
}

/** Consecutive parts of `text`, each needing at most `typing.bindBatch` characters bound. */
export function typingBatches(text: string): TypingBatch[] {
  const batches: TypingBatch[] = [];
  let current: TypingBatch = { text: '', bind: [] };
  for (const character of text) {
    const codepoint = character.codePointAt(0) ?? 0;
    const unbound = !onKeyboard.test(character) && !current.bind.includes(codepoint);
    if (unbound && current.bind.length === typing.bindBatch) {
      batches.push(current);
      current = { text: '', bind: [] };
    }
    if (unbound) current.bind.push(codepoint);
    current.text += character;
  }
  if (current.text !== '') batches.push(current);
  return batches;
}

const keymapProgram = readFileSync(new URL('./keymap.py', import.meta.url), 'utf8');

function typeScript(text: string): InputScript {
  const batches = typingBatches(text);
  const typed = (part: string) => shellWords(['xdotool', 'type', '--delay', typing.keyDelayMs, '--', part]);
  const steps = batches.flatMap((batch) => [
    ...(batch.bind.length === 0
      ? []
      : [`python3 -c ${quote(keymapProgram)} ${batch.bind.join(' ')}`, `sleep ${typing.settleSeconds}`]),
    ...chunks(batch.text, typing.chunkCharacters).map(typed),
  ]);
  return {
    script: steps.length === 0 ? 'true' : steps.join(' && '),
    timeoutSeconds: 30 + Math.ceil(Array.from(text).length / 100) + batches.length,
  };
}

function holdScript(keys: readonly string[], seconds: number): InputScript {
  const release = shellWords(['xdotool', 'keyup', '--', ...[...keys].reverse()]);
  return {
    script: `trap '${release.replaceAll("'", `'\\''`)}' EXIT; ${shellWords(['xdotool', 'keydown', '--', ...keys])} && sleep ${seconds}`,
    timeoutSeconds: Math.ceil(seconds) + 30,
  };
}

/** The script of one input action; `cursor` and `open` are answered elsewhere. */
export function inputScript(action: Exclude<InputAction, { action: 'cursor' | 'open' }>): InputScript {
  const quick = (script: string): InputScript => ({ script, timeoutSeconds: 30 });
  switch (action.action) {
    case 'click': {
      const repeat = action.count > 1 ? ['--repeat', action.count, '--delay', 100] : [];
      const click = ['click', ...repeat, buttons[action.button]];
      return quick(holding(action.modifiers, shellWords(['xdotool', ...at(action.x, action.y), ...click])));
    }
    case 'move':
      return quick(shellWords(['xdotool', 'mousemove', action.x, action.y]));
    case 'down':
      return quick(shellWords(['xdotool', 'mousedown', 1]));
    case 'up':
      return quick(shellWords(['xdotool', 'mouseup', 1]));
    case 'drag': {
      const middle = [Math.round((action.x + action.to_x) / 2), Math.round((action.y + action.to_y) / 2)];
      const drag = [
        ...['mousemove', action.x, action.y, 'mousedown', 1, 'sleep', 0.05],
        ...['mousemove', ...middle, 'sleep', 0.05, 'mousemove', action.to_x, action.to_y, 'sleep', 0.05],
        ...['mouseup', 1],
      ];
      return quick(holding(action.modifiers, shellWords(['xdotool', ...drag])));
    }
    case 'scroll': {
      const notches = ['click', '--repeat', action.amount, '--delay', 20, wheel[action.direction]];
      return quick(holding(action.modifiers, shellWords(['xdotool', ...at(action.x, action.y), ...notches])));
    }
    case 'type':
      return typeScript(action.text);
    case 'key':
      return quick(
        shellWords(['xdotool', 'key', '--repeat', action.repeat, '--delay', 25, '--', ...action.keys]),
      );
    case 'hold':
      return holdScript(action.keys, action.seconds);
    default: {
      const unhandled: never = action;
      return unhandled;
    }
  }
}

export const cursorScript = 'xdotool getmouselocation --shell';

/** `X=12\nY=34\nSCREEN=0\nWINDOW=…` → `{ x, y }`. */
export function parseCursor(output: string): { x: number; y: number } {
  const x = /^X=(\d+)$/m.exec(output)?.[1];
  const y = /^Y=(\d+)$/m.exec(output)?.[1];
  if (x === undefined || y === undefined) throw new Error(`xdotool gave no pointer position: ${output}`);
  return { x: Number(x), y: Number(y) };
}
