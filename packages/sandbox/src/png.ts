import { ApiError, unexpectedAnswer } from './errors.js';

// A screenshot's size, read from the PNG itself (its IHDR chunk) and checked against the
// `x-image-width` and `x-image-height` headers when they can be read: a browser reads them only
// if the API exposes them to the page, and the PNG always says its own size.

const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function notAPng(detail: string): ApiError {
  return new ApiError({
    code: unexpectedAnswer,
    status: 200,
    message: `The screenshot is not a PNG of the size the API stated (${detail}): take it again.`,
  });
}

/** Width and height of a PNG: bytes 16 to 23, after the signature and the IHDR chunk's length and type. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const ihdr = String.fromCharCode(...png.subarray(12, 16));
  if (png.length < 24 || signature.some((byte, i) => png[i] !== byte) || ihdr !== 'IHDR')
    throw notAPng('no PNG header');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** The PNG's size, which must match the headers where they were readable. */
export function screenshotSize(png: Uint8Array, headers: Headers): { width: number; height: number } {
  const size = pngSize(png);
  const stated = [headers.get('x-image-width'), headers.get('x-image-height')];
  if (stated[0] !== null && Number(stated[0]) !== size.width)
    throw notAPng(`width ${stated[0]}, PNG ${size.width}`);
  if (stated[1] !== null && Number(stated[1]) !== size.height)
    throw notAPng(`height ${stated[1]}, PNG ${size.height}`);
  return size;
}
