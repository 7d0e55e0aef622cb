import { describe, expect, it } from 'vitest';
import {
  adapterBKeys,
  parseKeyCombination,
  parseKeyName,
  parseModifiers,
  translateAdapterBKeys,
} from '../../../domain/sandboxes/keys.ts';

const value = <T>(result: { ok: true; value: T } | { ok: false }) => (result.ok ? result.value : undefined);

describe('key names → xdotool', () => {
  it.each([
    ['Return', 'Return'],
    ['Escape', 'Escape'],
    ['Tab', 'Tab'],
    ['BackSpace', 'BackSpace'],
    ['Left', 'Left'],
    ['a', 'a'],
    ['A', 'A'],
    ['7', '7'],
    ['F5', 'F5'],
    ['F24', 'F24'],
    ['Page_Down', 'Page_Down'],
    ['return', 'Return'],
    ['BACKSPACE', 'BackSpace'],
    ['Enter', 'Return'],
    ['esc', 'Escape'],
    ['PageUp', 'Page_Up'],
    ['ArrowLeft', 'Left'],
    ['-', 'minus'],
    ['/', 'slash'],
    ['space', 'space'],
    ['shift', 'shift'],
    ['ctrl', 'ctrl'],
    ['Control', 'ctrl'],
    ['alt', 'alt'],
    ['super', 'super'],
    ['cmd', 'super'],
    ['F25', undefined],
    ['Hyper_Q', undefined],
    ['ab', undefined],
    ['', undefined],
  ])('%s → %s', (name, xdotool) => {
    expect(value(parseKeyName(name))).toBe(xdotool);
  });

  it('says how to write a key it does not know', () => {
    expect(parseKeyName('Hyper_Q')).toEqual({
      ok: false,
      message: expect.stringMatching(/^`Hyper_Q` is not a key name: use a key name such as `Return`/),
    });
  });
});

describe('combinations', () => {
  it.each([
    ['ctrl+s', 'ctrl+s'],
    ['ctrl+shift+T', 'ctrl+shift+T'],
    ['CTRL+Enter', 'ctrl+Return'],
    ['super+space', 'super+space'],
    ['+', 'plus'],
    ['ctrl++', 'ctrl+plus'],
    ['ctrl+', undefined],
    ['+a', undefined],
    ['ctrl++a', undefined],
    ['ctrl+nope', undefined],
  ])('%s → %s', (combination, xdotool) => {
    expect(value(parseKeyCombination(combination))).toBe(xdotool);
  });
});

describe('modifiers', () => {
  it.each([
    ['shift', ['shift']],
    ['ctrl+alt', ['ctrl', 'alt']],
    ['shift+ctrl+alt+super', ['shift', 'ctrl', 'alt', 'super']],
    ['Shift+Ctrl', ['shift', 'ctrl']],
    ['shift+shift', ['shift']],
    ['meta', undefined],
    ['shift+', undefined],
    ['', undefined],
  ])('%s', (text, parsed) => {
    expect(value(parseModifiers(text))).toEqual(parsed);
  });
});

describe('adapter B key names', () => {
  it.each([
    ['CTRL', 'ctrl'],
    ['ENTER', 'Return'],
    ['ARROWLEFT', 'Left'],
    ['ESC', 'Escape'],
    ['SPACE', 'space'],
    ['BACKSPACE', 'BackSpace'],
  ])('the table maps %s to %s', (theirs, ours) => {
    expect(adapterBKeys[theirs]).toBe(ours);
  });

  it.each([
    [['CTRL', 'C'], 'ctrl+c'],
    [['ENTER'], 'Return'],
    [['ctrl', 'shift', 'ARROWLEFT'], 'ctrl+shift+Left'],
    [['META', 'SPACE'], 'super+space'],
    [['F5'], 'F5'],
    [['/'], 'slash'],
    [['CTRL', 'NOPE'], undefined],
    [[], undefined],
  ])('%j → %s', (keys, combination) => {
    expect(value(translateAdapterBKeys(keys))).toBe(combination);
  });

  it('every entry of the table is a key we accept', () => {
    for (const ours of Object.values(adapterBKeys)) expect(value(parseKeyName(ours))).toBe(ours);
  });
});
