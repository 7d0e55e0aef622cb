// The screen as the model sees it: a screen over `MAX_SIDE` pixels a side is shown shrunk, and every
// position the model sends is mapped back to screen pixels (and the cursor's position forward).

import type { Point, Region } from '../desktop-types.js';
import { ComputerUseError } from './errors.js';
import { fitSize, type Size } from './png.js';

/** The largest side of a screenshot that is sent at full size (spec 002, adapter A). */
export const MAX_SIDE = 2000;

/** Maps between screen pixels and the pixels of the (possibly shrunk) screenshots the model sees. */
export class ScreenScale {
  readonly screen: Size;
  /** The size of a full screenshot as the model sees it. */
  readonly shot: Size;

  private constructor(screen: Size, shot: Size) {
    this.screen = screen;
    this.shot = shot;
  }

  /** The scale for a screen of `screen` pixels, shrunk to fit `max` pixels a side. */
  static fit(screen: Size, max = MAX_SIDE): ScreenScale {
    return new ScreenScale({ width: screen.width, height: screen.height }, fitSize(screen, max));
  }

  /** A model's `[x, y]` in screenshot pixels as a screen position; refused outside the screenshot. */
  toScreen(value: unknown, field: string): Point {
    const [x, y] = wholeNumbers(value, 2, field, '[x, y]') as [number, number];
    if (x >= this.shot.width || y >= this.shot.height) {
      throw new ComputerUseError(`${field} [${x}, ${y}] is outside the screenshot, ${this.#shotSize()}`);
    }
    return {
      x: Math.min(this.screen.width - 1, Math.round((x * this.screen.width) / this.shot.width)),
      y: Math.min(this.screen.height - 1, Math.round((y * this.screen.height) / this.shot.height)),
    };
  }

  /** A screen position in screenshot pixels. */
  toShot(point: Point): Point {
    return {
      x: Math.min(this.shot.width - 1, Math.round((point.x * this.shot.width) / this.screen.width)),
      y: Math.min(this.shot.height - 1, Math.round((point.y * this.shot.height) / this.screen.height)),
    };
  }

  /** A model's `[x0, y0, x1, y1]` in screenshot pixels as screen corners; refused outside or empty. */
  regionToScreen(value: unknown, field: string): Region {
    const [x0, y0, x1, y1] = wholeNumbers(value, 4, field, '[x0, y0, x1, y1]') as [
      number,
      number,
      number,
      number,
    ];
    const shown = `${field} [${x0}, ${y0}, ${x1}, ${y1}]`;
    if (x0 >= x1 || y0 >= y1)
      throw new ComputerUseError(`${shown} is empty: x0 must be below x1 and y0 below y1`);
    if (x1 > this.shot.width || y1 > this.shot.height) {
      throw new ComputerUseError(`${shown} is outside the screenshot, ${this.#shotSize()}`);
    }
    const sx = this.screen.width / this.shot.width;
    const sy = this.screen.height / this.shot.height;
    return [Math.round(x0 * sx), Math.round(y0 * sy), Math.round(x1 * sx), Math.round(y1 * sy)];
  }

  #shotSize(): string {
    return `which is ${this.shot.width}x${this.shot.height} pixels`;
  }
}

/** `WIDTHxHEIGHT`, as the desktop status's `size`, read; `undefined` if it is not that. */
export function parseSize(size: string): Size | undefined {
  const match = /^(\d+)x(\d+)$/.exec(size);
  if (!match) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

function wholeNumbers(value: unknown, count: number, field: string, shape: string): number[] {
  const valid =
    Array.isArray(value) &&
    value.length === count &&
    value.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0);
  if (!valid) {
    throw new ComputerUseError(
      `${field} must be ${shape}, ${count} whole numbers of pixels from the top left; got ${JSON.stringify(value)}`,
    );
  }
  return value as number[];
}
