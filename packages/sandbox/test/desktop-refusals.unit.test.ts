import { describe, expect, it } from 'vitest';
import { Connection } from '../src/connection.js';
import { Desktop } from '../src/desktop.js';
import type { ClickOptions, DragOptions, Point, Region, ScrollOptions } from '../src/desktop-types.js';
import { ApiError } from '../src/errors.js';
import { recordingFetch } from './recording-fetch.js';

// Every limit of spec 002's desktop methods is refused before a request is sent: an `ApiError`
// with the API's code and status for it (`invalid_request`, 422) and `param` naming the argument.

const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://example.com/${i}`);
const keys = (count: number) => Array.from({ length: count }, () => 'a');
/** JavaScript callers are not held to the types: these arguments break them on purpose. */
const untyped = <T>(value: unknown) => value as T;

const refusals: [string, (desktop: Desktop) => Promise<unknown>, string][] = [
  ['start at 319x800', (d) => d.start({ resolution: '319x800' }), 'resolution'],
  ['start at 1921x800', (d) => d.start({ resolution: '1921x800' }), 'resolution'],
  ['start at 1280x239', (d) => d.start({ resolution: '1280x239' }), 'resolution'],
  ['start at 1280x1081', (d) => d.start({ resolution: '1280x1081' }), 'resolution'],
  ['start at 1280*800', (d) => d.start({ resolution: '1280*800' }), 'resolution'],
  ['a region of three corners', (d) => d.screenshot({ region: untyped<Region>([0, 0, 10]) }), 'region'],
  ['a region without width', (d) => d.screenshot({ region: [10, 0, 10, 10] }), 'region'],
  ['a region without height', (d) => d.screenshot({ region: [0, 10, 10, 5] }), 'region'],
  ['a region off the top left', (d) => d.screenshot({ region: [-1, 0, 10, 10] }), 'region'],
  ['a region of fractions', (d) => d.screenshot({ region: [0, 0, 10.5, 10] }), 'region'],
  ['click with x only', (d) => d.click({ x: 1 }), 'y'],
  ['click with y only', (d) => d.click({ y: 1 }), 'x'],
  ['click at x -1', (d) => d.click({ x: -1, y: 0 }), 'x'],
  ['click at y 0.5', (d) => d.click({ x: 0, y: 0.5 }), 'y'],
  ['click count 0', (d) => d.click(untyped<ClickOptions>({ count: 0 })), 'count'],
  ['click count 4', (d) => d.click(untyped<ClickOptions>({ count: 4 })), 'count'],
  ['click button back', (d) => d.click(untyped<ClickOptions>({ button: 'back' })), 'button'],
  ['click with modifier meta', (d) => d.click({ modifiers: 'meta' }), 'modifiers'],
  ['click with modifiers ctrl+', (d) => d.click({ modifiers: 'ctrl+' }), 'modifiers'],
  ['move without y', (d) => d.move(untyped<Point>({ x: 1 })), 'y'],
  ['drag without to', (d) => d.drag(untyped<DragOptions>({ from: { x: 1, y: 1 } })), 'to'],
  ['drag from x -1', (d) => d.drag({ from: { x: -1, y: 1 }, to: { x: 2, y: 2 } }), 'from.x'],
  [
    'drag with modifier cmd',
    (d) => d.drag({ from: { x: 1, y: 1 }, to: { x: 2, y: 2 }, modifiers: 'cmd' }),
    'modifiers',
  ],
  ['scroll sideways', (d) => d.scroll(untyped<ScrollOptions>({ direction: 'sideways' })), 'direction'],
  ['scroll without direction', (d) => d.scroll(untyped<ScrollOptions>({})), 'direction'],
  ['scroll 0 notches', (d) => d.scroll({ direction: 'down', amount: 0 }), 'amount'],
  ['scroll 101 notches', (d) => d.scroll({ direction: 'down', amount: 101 }), 'amount'],
  ['scroll at x only', (d) => d.scroll({ direction: 'up', x: 3 }), 'y'],
  ['type 10,001 bytes', (d) => d.type('a'.repeat(10_001)), 'text'],
  ['type 5,001 two-byte characters', (d) => d.type('é'.repeat(5_001)), 'text'],
  ['type nothing', (d) => d.type(untyped<string>(undefined)), 'text'],
  ['key without keys', (d) => d.key([]), 'keys'],
  ['key with 51 keys', (d) => d.key(keys(51)), 'keys'],
  ['key with an empty name', (d) => d.key(['a', '']), 'keys[1]'],
  ['key repeated 0 times', (d) => d.key('a', { repeat: 0 }), 'repeat'],
  ['key repeated 101 times', (d) => d.key('a', { repeat: 101 }), 'repeat'],
  ['hold for -1 s', (d) => d.hold('shift', -1), 'seconds'],
  ['hold for 300.5 s', (d) => d.hold('shift', 300.5), 'seconds'],
  ['hold 51 keys', (d) => d.hold(keys(51), 1), 'keys'],
  ['open no URL', (d) => d.open([]), 'urls'],
  ['open 21 URLs', (d) => d.open(urls(21)), 'urls'],
  ['open an ftp URL', (d) => d.open(['https://example.com', 'ftp://example.com']), 'urls[1]'],
  ['open a javascript: URL', (d) => d.open('javascript:alert(1)'), 'urls'],
  ['open a bare host', (d) => d.open('example.com'), 'urls'],
  ['a tree of depth 0', (d) => d.accessibility.tree({ depth: 0 }), 'depth'],
  ['a tree of depth 201', (d) => d.accessibility.tree({ depth: 201 }), 'depth'],
  ['a tree of depth 1.5', (d) => d.accessibility.tree({ depth: 1.5 }), 'depth'],
  [
    'a tree with includeHidden "yes"',
    (d) => d.accessibility.tree(untyped({ includeHidden: 'yes' })),
    'includeHidden',
  ],
  ['an act without ref', (d) => d.accessibility.act({ ref: '', action: 'press' }), 'ref'],
  ['set-text without text', (d) => d.accessibility.act({ ref: 'e1', action: 'set-text' }), 'text'],
];

describe('a desktop refuses, without a request,', () => {
  it.each(refusals)('%s', async (_name, call, param) => {
    const { fetch, requests } = recordingFetch();
    const desktop = new Desktop(new Connection({ bearer: 'key', fetch }), 'sbx_1');
    const refusal = await call(desktop).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'invalid_request', status: 422, param });
    // The message names the argument and says what to send.
    expect((refusal as ApiError).message).toMatch(
      new RegExp(`^(Invalid|Missing) \`${param.replace(/[[\].]/g, '\\$&')}\`: send `),
    );
    expect(requests).toEqual([]);
  });
});
