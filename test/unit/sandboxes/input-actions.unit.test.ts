import { describe, expect, it } from 'vitest';
import { inputAction } from '../../../domain/sandboxes/input-actions.ts';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';

function verdict(input: unknown): true | string {
  const result = parseSandboxBody(inputAction, input);
  return result.ok ? true : result.param;
}

const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://example.com/${i}`);
const keyList = (count: number) => Array.from({ length: count }, () => 'a');

// "Input actions" and "Limits", at each limit and one past it.
describe('input actions: fields and ranges', () => {
  it.each([
    ['click at the pointer', { action: 'click' }, true],
    ['click at a position', { action: 'click', x: 0, y: 0 }, true],
    ['click with x only', { action: 'click', x: 5 }, 'y'],
    ['click with y only', { action: 'click', y: 5 }, 'x'],
    ['click count 0', { action: 'click', count: 0 }, 'count'],
    ['click count 1', { action: 'click', count: 1 }, true],
    ['click count 3', { action: 'click', count: 3 }, true],
    ['click count 4', { action: 'click', count: 4 }, 'count'],
    ['click button right', { action: 'click', button: 'right' }, true],
    ['click button back', { action: 'click', button: 'back' }, 'button'],
    ['click negative x', { action: 'click', x: -1, y: 0 }, 'x'],
    ['click fractional y', { action: 'click', x: 1, y: 1.5 }, 'y'],
    ['click modifiers', { action: 'click', modifiers: 'shift+ctrl+alt+super' }, true],
    ['click unknown modifier', { action: 'click', modifiers: 'shift+hyper' }, 'modifiers'],
    ['move', { action: 'move', x: 10, y: 20 }, true],
    ['move without y', { action: 'move', x: 10 }, 'y'],
    ['down', { action: 'down' }, true],
    ['up with a field', { action: 'up', x: 1 }, 'x'],
    ['drag', { action: 'drag', x: 1, y: 2, to_x: 3, to_y: 4, modifiers: 'shift' }, true],
    ['drag without to_y', { action: 'drag', x: 1, y: 2, to_x: 3 }, 'to_y'],
    ['scroll amount 0', { action: 'scroll', direction: 'down', amount: 0 }, 'amount'],
    ['scroll amount 1', { action: 'scroll', direction: 'down', amount: 1 }, true],
    ['scroll amount 100', { action: 'scroll', direction: 'down', amount: 100 }, true],
    ['scroll amount 101', { action: 'scroll', direction: 'down', amount: 101 }, 'amount'],
    ['scroll sideways', { action: 'scroll', direction: 'sideways' }, 'direction'],
    ['scroll with x only', { action: 'scroll', direction: 'up', x: 3 }, 'y'],
    ['type 10,000 bytes', { action: 'type', text: 'a'.repeat(10_000) }, true],
    ['type 10,001 bytes', { action: 'type', text: 'a'.repeat(10_001) }, 'text'],
    ['type 3,333 three-byte characters (9,999 bytes)', { action: 'type', text: '€'.repeat(3_333) }, true],
    ['type 3,334 three-byte characters (10,002 bytes)', { action: 'type', text: '€'.repeat(3_334) }, 'text'],
    ['type 2,500 four-byte characters (10,000 bytes)', { action: 'type', text: '😀'.repeat(2_500) }, true],
    [
      'type 2,500 four-byte characters and one more byte',
      { action: 'type', text: `${'😀'.repeat(2_500)}a` },
      'text',
    ],
    ['key 50 keys', { action: 'key', keys: keyList(50) }, true],
    ['key 51 keys', { action: 'key', keys: keyList(51) }, 'keys'],
    ['key one string', { action: 'key', keys: 'ctrl+s' }, true],
    ['key unknown name', { action: 'key', keys: ['Return', 'Hyper_Q'] }, 'keys[1]'],
    ['key repeat 0', { action: 'key', keys: 'a', repeat: 0 }, 'repeat'],
    ['key repeat 100', { action: 'key', keys: 'a', repeat: 100 }, true],
    ['key repeat 101', { action: 'key', keys: 'a', repeat: 101 }, 'repeat'],
    ['key no keys', { action: 'key', keys: [] }, 'keys'],
    ['hold 0 seconds', { action: 'hold', keys: ['shift'], seconds: 0 }, true],
    ['hold 300 seconds', { action: 'hold', keys: ['shift'], seconds: 300 }, true],
    ['hold 300.5 seconds', { action: 'hold', keys: ['shift'], seconds: 300.5 }, 'seconds'],
    ['hold 301 seconds', { action: 'hold', keys: ['shift'], seconds: 301 }, 'seconds'],
    ['hold -1 seconds', { action: 'hold', keys: ['shift'], seconds: -1 }, 'seconds'],
    ['hold without seconds', { action: 'hold', keys: ['shift'] }, 'seconds'],
    ['cursor', { action: 'cursor' }, true],
    ['open 1 URL', { action: 'open', urls: urls(1) }, true],
    ['open 20 URLs', { action: 'open', urls: urls(20) }, true],
    ['open 21 URLs', { action: 'open', urls: urls(21) }, 'urls'],
    ['open no URLs', { action: 'open', urls: [] }, 'urls'],
    [
      'open an ftp URL',
      { action: 'open', urls: ['https://a.example', 'http://b.example', 'ftp://c.example'] },
      'urls[2]',
    ],
    ['open a non-URL', { action: 'open', urls: ['example.com'] }, 'urls[0]'],
    ['an unknown action', { action: 'wiggle' }, 'action'],
    ['no action', {}, 'action'],
  ])('%s', (_name, input, expected) => {
    expect(verdict(input)).toBe(expected);
  });
});

describe('input actions: parsed values', () => {
  it.each([
    [{ action: 'click' }, { action: 'click', button: 'left', count: 1 }],
    [
      { action: 'click', modifiers: 'ctrl+shift+ctrl' },
      { action: 'click', button: 'left', count: 1, modifiers: ['ctrl', 'shift'] },
    ],
    [
      { action: 'scroll', direction: 'up' },
      { action: 'scroll', direction: 'up', amount: 3 },
    ],
    [
      { action: 'key', keys: 'ctrl+Enter' },
      { action: 'key', keys: ['ctrl+Return'], repeat: 1 },
    ],
    [
      { action: 'hold', keys: ['shift', 'a'], seconds: 0.5 },
      { action: 'hold', keys: ['shift', 'a'], seconds: 0.5 },
    ],
  ])('%j', (input, value) => {
    expect(parseSandboxBody(inputAction, input)).toEqual({ ok: true, value });
  });

  it.each([
    [{ action: 'click', count: 4 }, 'Invalid `count`: send an integer from 1 to 3.'],
    [{ action: 'click', x: 5 }, 'Missing `y`: send both `x` and `y`, or neither to act at the pointer.'],
    [
      { action: 'type', text: 'a'.repeat(10_001) },
      'Invalid `text`: send at most 10,000 bytes of UTF-8 text.',
    ],
    [{ action: 'open', urls: ['ftp://a.example'] }, 'Invalid `urls[0]`: send an `http` or `https` URL.'],
    [{ action: 'wiggle' }, expect.stringMatching(/^Invalid `action`: send one of `click`, `move`/)],
    [{}, expect.stringMatching(/^Missing `action`: send one of `click`/)],
    [{ action: 'move', x: 1 }, 'Missing `y`: send a whole number of pixels, 0 or more.'],
    [
      { action: 'key', keys: 'Hyper' },
      expect.stringMatching(/^Invalid `keys\[0\]`: `Hyper` is not a key name/),
    ],
  ])('message for %j', (input, message) => {
    expect(parseSandboxBody(inputAction, input)).toMatchObject({ ok: false, message });
  });
});
