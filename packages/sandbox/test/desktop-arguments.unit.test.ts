import { describe, expect, it } from 'vitest';
import {
  actBody,
  checkResolution,
  clickBody,
  dragBody,
  holdBody,
  keyBody,
  openBody,
  regionQuery,
  scrollBody,
  treeQuery,
  typeBody,
} from '../src/desktop-arguments.js';

// What the desktop methods send for values at and inside the limits, in the API's wire names
// (the int test sends them to the real API).

describe('values at the limits are sent as they are', () => {
  it.each(['320x240', '1920x1080', '1280x800'])('resolution %s', (resolution) => {
    expect(checkResolution(resolution)).toBe(resolution);
  });

  it('a region as `x0,y0,x1,y1`', () => {
    expect(regionQuery([0, 0, 1, 1])).toBe('0,0,1,1');
    expect(regionQuery(undefined)).toBeUndefined();
  });

  it('click: at the pointer, or at both coordinates, with button, count and modifiers', () => {
    expect(clickBody()).toEqual({ action: 'click' });
    expect(clickBody({ x: 0, y: 7, button: 'right', count: 3, modifiers: 'CTRL+shift' })).toEqual({
      action: 'click',
      x: 0,
      y: 7,
      button: 'right',
      count: 3,
      modifiers: 'CTRL+shift',
    });
  });

  it('drag: from and to as x, y, to_x, to_y', () => {
    expect(dragBody({ from: { x: 1, y: 2 }, to: { x: 3, y: 4 }, modifiers: 'alt' })).toEqual({
      action: 'drag',
      x: 1,
      y: 2,
      to_x: 3,
      to_y: 4,
      modifiers: 'alt',
    });
  });

  it('scroll: 1 and 100 notches', () => {
    expect(scrollBody({ direction: 'left', amount: 1 })).toEqual({
      action: 'scroll',
      direction: 'left',
      amount: 1,
    });
    expect(scrollBody({ direction: 'up', amount: 100, x: 5, y: 6 })).toMatchObject({
      amount: 100,
      x: 5,
      y: 6,
    });
  });

  it('type: 10,000 bytes of UTF-8', () => {
    expect(typeBody('é'.repeat(5_000)).text).toHaveLength(5_000);
  });

  it('key and hold: one key as an array, 50 keys, repeat 100, 0 and 300 seconds', () => {
    expect(keyBody('ctrl+c')).toEqual({ action: 'key', keys: ['ctrl+c'] });
    expect(
      keyBody(
        Array.from({ length: 50 }, () => 'Tab'),
        { repeat: 100 },
      ),
    ).toMatchObject({ repeat: 100 });
    expect(holdBody('shift', 0)).toEqual({ action: 'hold', keys: ['shift'], seconds: 0 });
    expect(holdBody(['shift', 'a'], 300)).toMatchObject({ seconds: 300 });
    expect(holdBody('shift', 0.5).seconds).toBe(0.5);
  });

  it('open: one URL as an array, and 20', () => {
    expect(openBody('http://127.0.0.1:8000/page.html')).toEqual({
      action: 'open',
      urls: ['http://127.0.0.1:8000/page.html'],
    });
    expect(openBody(Array.from({ length: 20 }, (_, i) => `https://a.example/${i}`)).urls).toHaveLength(20);
  });

  it('accessibility: the query in wire names, and the act body', () => {
    expect(treeQuery({ app: 'chromium', depth: 200, includeHidden: true })).toEqual({
      app: 'chromium',
      depth: '200',
      include_hidden: 'true',
    });
    expect(treeQuery({ depth: 1 })).toEqual({ depth: '1' });
    expect(actBody({ ref: 'e3', action: 'set-text', text: 'hi' })).toEqual({
      ref: 'e3',
      action: 'set-text',
      text: 'hi',
    });
    expect(actBody({ ref: 'e3', action: 'press' })).toEqual({ ref: 'e3', action: 'press' });
  });
});
