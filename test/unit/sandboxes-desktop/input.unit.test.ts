import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { inputAction } from '../../../domain/sandboxes/input-actions.ts';
import {
  chunks,
  inputScript,
  parseCursor,
  typing,
  typingBatches,
} from '../../../sandbox-runtime/desktop/input.ts';
import { shellWords } from '../../../sandbox-runtime/desktop/shell.ts';

// The spec's Input actions as xdotool scripts (input.ts), from actions parsed as the API parses
// them (domain/sandboxes/input-actions.ts: key names already in xdotool's spelling).

function compiled(body: unknown) {
  const action = inputAction.parse(body);
  if (action.action === 'cursor' || action.action === 'open') throw new Error('not an xdotool action');
  return inputScript(action);
}

const scriptOf = (body: unknown) => compiled(body).script;

describe('input actions as xdotool commands', () => {
  it('clicks at a position or at the pointer, with button and count', () => {
    expect(scriptOf({ action: 'click', x: 10, y: 20 })).toBe("'xdotool' 'mousemove' '10' '20' 'click' '1'");
    expect(scriptOf({ action: 'click', button: 'right', count: 3 })).toBe(
      "'xdotool' 'click' '--repeat' '3' '--delay' '100' '3'",
    );
  });

  it('holds modifiers around the action and releases them in reverse order, even if it fails', () => {
    const script = scriptOf({ action: 'click', x: 1, y: 2, modifiers: 'ctrl+shift' });
    expect(script).toMatch(
      /^trap '.*'xdotool'.*'keyup'.*'shift'.*'ctrl'.*' EXIT; 'xdotool' 'keydown' 'ctrl' 'shift' && /,
    );
    expect(scriptOf({ action: 'drag', x: 0, y: 0, to_x: 100, to_y: 50, modifiers: 'alt' })).toContain(
      "'mousemove' '0' '0' 'mousedown' '1' 'sleep' '0.05' 'mousemove' '50' '25' 'sleep' '0.05' 'mousemove' '100' '50' 'sleep' '0.05' 'mouseup' '1'",
    );
  });

  it('scrolls with wheel buttons 4 to 7, the amount as clicks', () => {
    const buttons = { up: 4, down: 5, left: 6, right: 7 };
    for (const [direction, button] of Object.entries(buttons)) {
      expect(scriptOf({ action: 'scroll', direction })).toBe(
        `'xdotool' 'click' '--repeat' '3' '--delay' '20' '${button}'`,
      );
    }
    expect(scriptOf({ action: 'scroll', direction: 'down', amount: 7, x: 5, y: 6 })).toBe(
      "'xdotool' 'mousemove' '5' '6' 'click' '--repeat' '7' '--delay' '20' '5'",
    );
  });

  it('presses keys by their xdotool names, in turn, repeated', () => {
    expect(scriptOf({ action: 'key', keys: ['ctrl+a', 'Enter', 'esc'], repeat: 2 })).toBe(
      "'xdotool' 'key' '--repeat' '2' '--delay' '25' '--' 'ctrl+a' 'Return' 'Escape'",
    );
    expect(scriptOf({ action: 'key', keys: 'ctrl++' })).toContain("'ctrl+plus'");
  });

  it('holds keys for the seconds asked and releases them on exit', () => {
    const { script, timeoutSeconds } = compiled({ action: 'hold', keys: ['shift', 'a'], seconds: 2.5 });
    expect(script).toBe(
      "trap ''\\''xdotool'\\'' '\\''keyup'\\'' '\\''--'\\'' '\\''a'\\'' '\\''shift'\\''' EXIT; 'xdotool' 'keydown' '--' 'shift' 'a' && sleep 2.5",
    );
    expect(timeoutSeconds).toBe(33);
  });

  it('types plain text in chunks, with no keymap change', () => {
    const text = 'a'.repeat(typing.chunkCharacters + 1);
    const script = scriptOf({ action: 'type', text });
    expect(script.split(' && ')).toHaveLength(2);
    expect(script).not.toContain('python3');
    expect(scriptOf({ action: 'type', text: '' })).toBe('true');
  });

  it('binds characters beyond the keyboard first, 16 distinct at most per part', () => {
    expect(typingBatches('ab\nc\td')).toEqual([{ text: 'ab\nc\td', bind: [] }]);
    expect(typingBatches('éé ✓ 😀')).toEqual([{ text: 'éé ✓ 😀', bind: [0xe9, 0x2713, 0x1f600] }]);
    const many = 'αβγδεζηθικλμνξοπρστ';
    const batches = typingBatches(many);
    expect(batches.map((b) => b.text).join('')).toBe(many);
    expect(batches.map((b) => b.bind.length)).toEqual([typing.bindBatch, many.length - typing.bindBatch]);
    expect(scriptOf({ action: 'type', text: 'é' })).toMatch(
      /^python3 -c '.*' 233 && sleep 0\.05 && 'xdotool' 'type'/s,
    );
  });

  it('keeps characters whole when cutting text into chunks', () => {
    expect(chunks('😀😀😀', 2)).toEqual(['😀😀', '😀']);
    expect(chunks('', 5)).toEqual([]);
  });

  it('reads the pointer position', () => {
    expect(parseCursor('X=12\nY=345\nSCREEN=0\nWINDOW=4194311\n')).toEqual({ x: 12, y: 345 });
    expect(() => parseCursor('nothing')).toThrow();
  });
});

describe('shell words', () => {
  it('reach the program exactly, whatever they hold', () => {
    const words = ["it's", '$HOME', '`id`', '"q"', '\\', '-x', 'a\nb', 'é ✓ 😀', ''];
    const { stdout } = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${shellWords(words)}`], {
      encoding: 'utf8',
    });
    expect(stdout.split('\0').slice(0, -1)).toEqual(words);
  });
});
