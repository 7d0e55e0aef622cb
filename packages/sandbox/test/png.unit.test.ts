import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { pngSize, screenshotSize } from '../src/png.js';

// A screenshot's size from the PNG, checked against the API's `x-image-width`/`-height` headers.

const png = (width: number, height: number) => new Uint8Array(PNG.sync.write(new PNG({ width, height })));

describe('screenshot size', () => {
  it('is read from the PNG', () => {
    expect(pngSize(png(1280, 800))).toEqual({ width: 1280, height: 800 });
    expect(pngSize(png(3, 2))).toEqual({ width: 3, height: 2 });
  });

  it('agrees with the headers, or is the PNG alone where they are not readable', () => {
    const headers = new Headers({ 'x-image-width': '640', 'x-image-height': '400' });
    expect(screenshotSize(png(640, 400), headers)).toEqual({ width: 640, height: 400 });
    expect(screenshotSize(png(640, 400), new Headers())).toEqual({ width: 640, height: 400 });
  });

  it.each([
    ['a width other than the header', png(641, 400), /width 640, PNG 641/],
    ['a height other than the header', png(640, 401), /height 400, PNG 401/],
    [
      'bytes that are not a PNG',
      new TextEncoder().encode('<html>not a png, at all, no</html>'),
      /no PNG header/,
    ],
  ])('refuses %s', (_name, bytes, message) => {
    const headers = new Headers({ 'x-image-width': '640', 'x-image-height': '400' });
    expect(() => screenshotSize(bytes, headers)).toThrow(message);
    expect(() => screenshotSize(bytes, headers)).toThrow(
      expect.objectContaining({ code: 'unexpected_answer' }),
    );
  });
});
