import { inflateSync } from 'node:zlib';

// Reading the screenshots' pixels in the tests: a small PNG decoder for what the desktop
// returns, 8-bit RGB (screenshot.ts writes `PNG24`), non-interlaced. Decoding here, rather than
// asking ImageMagick inside the sandbox for a pixel, checks the very bytes the API will send.

export interface Image {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number];
}

export type Rgb = readonly [number, number, number];

export interface Box {
  x0: number;
  y0: number;
  /** Exclusive edges. */
  x1: number;
  y1: number;
}

const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

export function decodePng(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(signature)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || colour !== 2 || interlace !== 0) {
        throw new Error(`expected 8-bit RGB without interlace, got depth ${depth} colour type ${colour}`);
      }
    }
    if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const pixels = unfilter(inflateSync(Buffer.concat(data)), width, height, 3);
  return {
    width,
    height,
    pixel(x, y) {
      const at = (y * width + x) * 3;
      return [pixels[at] ?? 0, pixels[at + 1] ?? 0, pixels[at + 2] ?? 0];
    },
  };
}

/** Reverses PNG's per-row filters (none, sub, up, average, Paeth). */
function unfilter(raw: Buffer, width: number, height: number, bytesPerPixel: number): Buffer {
  const stride = width * bytesPerPixel;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const value = raw[y * (stride + 1) + 1 + i] ?? 0;
      const left = i >= bytesPerPixel ? (out[y * stride + i - bytesPerPixel] ?? 0) : 0;
      const up = y > 0 ? (out[(y - 1) * stride + i] ?? 0) : 0;
      const upLeft = y > 0 && i >= bytesPerPixel ? (out[(y - 1) * stride + i - bytesPerPixel] ?? 0) : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter ?? 0] ?? 0;
      out[y * stride + i] = (value + predictor) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The bounding box of the pixels of exactly `colour`, or undefined if there is none. */
export function findColour(image: Image, colour: Rgb): Box | undefined {
  let box: Box | undefined;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.pixel(x, y);
      if (r !== colour[0] || g !== colour[1] || b !== colour[2]) continue;
      box = box
        ? {
            x0: Math.min(box.x0, x),
            y0: Math.min(box.y0, y),
            x1: Math.max(box.x1, x + 1),
            y1: Math.max(box.y1, y + 1),
          }
        : { x0: x, y0: y, x1: x + 1, y1: y + 1 };
    }
  }
  return box;
}

export function centre(box: Box): { x: number; y: number } {
  return { x: Math.floor((box.x0 + box.x1) / 2), y: Math.floor((box.y0 + box.y1) / 2) };
}
