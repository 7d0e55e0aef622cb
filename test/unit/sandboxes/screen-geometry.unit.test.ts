import { describe, expect, it } from 'vitest';
import {
  checkRegion,
  defaultResolution,
  parseResolution,
  positionOutsideScreen,
  type Region,
  regionOutputSize,
} from '../../../domain/sandboxes/screen-geometry.ts';

const screen = { width: 1280, height: 800 };

describe('resolution', () => {
  it.each([
    ['1280x800', { width: 1280, height: 800 }],
    ['320x240', { width: 320, height: 240 }],
    ['1920x1080', { width: 1920, height: 1080 }],
    ['319x240', undefined],
    ['1921x1080', undefined],
    ['320x239', undefined],
    ['1920x1081', undefined],
    ['1280X800', undefined],
    ['1280x', undefined],
  ])('%s', (text, size) => {
    const result = parseResolution(text);
    expect(result.ok ? result.value : undefined).toEqual(size);
  });

  it('defaults to 1280x800', () => {
    expect(defaultResolution).toEqual({ width: 1280, height: 800 });
  });
});

describe('region', () => {
  it.each([
    [[0, 0, 1280, 800], true],
    [[0, 0, 1281, 800], false],
    [[0, 0, 1280, 801], false],
    [[100, 100, 100, 200], false],
    [[100, 200, 300, 200], false],
    [[1279, 799, 1280, 800], true],
  ] as [Region, boolean][])('%j inside a 1280x800 screen: %s', (region, ok) => {
    expect(checkRegion(screen, region).ok).toBe(ok);
  });

  // The region scaled up to fit the screen, aspect kept; the other side rounded half up.
  it.each([
    ['the whole screen', [0, 0, 1280, 800], { width: 1280, height: 800 }],
    ['a quarter, same aspect', [0, 0, 640, 400], { width: 1280, height: 800 }],
    ['a wide strip: width limits', [0, 0, 1280, 100], { width: 1280, height: 100 }],
    ['a wide strip scaled', [0, 0, 640, 100], { width: 1280, height: 200 }],
    ['a tall strip: height limits', [0, 0, 100, 400], { width: 200, height: 800 }],
    ['a square', [10, 10, 110, 110], { width: 800, height: 800 }],
    ['a 3:2 region: height limits', [0, 0, 3, 2], { width: 1200, height: 800 }],
    ['rounding down: 284.44', [0, 0, 9, 2], { width: 1280, height: 284 }],
    ['rounding up: 548.57', [0, 0, 7, 3], { width: 1280, height: 549 }],
    ['rounding half up: 2.5', [0, 0, 1024, 2], { width: 1280, height: 3 }],
    ['one pixel', [5, 5, 6, 6], { width: 800, height: 800 }],
  ] as [string, Region, { width: number; height: number }][])('%s', (_name, region, size) => {
    expect(regionOutputSize(screen, region)).toEqual(size);
  });

  it('never exceeds the screen, and keeps the aspect within a pixel', () => {
    for (let w = 1; w <= 1280; w += 37) {
      for (let h = 1; h <= 800; h += 29) {
        const out = regionOutputSize(screen, [0, 0, w, h]);
        expect(out.width <= 1280 && out.height <= 800).toBe(true);
        expect(out.width === 1280 || out.height === 800).toBe(true);
        expect(Math.abs(out.width / out.height - w / h)).toBeLessThan(
          (w / h) * (1 / Math.min(out.width, out.height)) + 1e-9,
        );
      }
    }
  });
});

describe('positions on the screen', () => {
  it.each([
    [{ x: 1279, y: 799 }, undefined],
    [{ x: 1280, y: 0 }, 'x'],
    [{ x: 0, y: 800 }, 'y'],
    [{ x: 0, y: 0, to_x: 1280, to_y: 0 }, 'to_x'],
    [{ x: 0, y: 0, to_x: 0, to_y: 800 }, 'to_y'],
    [{}, undefined],
  ])('%j', (input, param) => {
    expect(positionOutsideScreen(screen, input)?.param).toBe(param);
  });
});
