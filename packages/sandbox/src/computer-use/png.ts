// PNG sizes and shrinking, without Node APIs: an OffscreenCanvas where the runtime has one, else the
// caller's `resize` function.

import type { Screenshot } from '../desktop-types.js';
import { ComputerUseError } from './errors.js';

export interface Size {
  width: number;
  height: number;
}

/** Shrinks a PNG to exactly `width` x `height` and answers the new PNG's bytes. */
export type Resize = (png: Uint8Array, width: number, height: number) => Uint8Array | Promise<Uint8Array>;

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The width and height in a PNG's header (its first chunk, IHDR). */
export function pngSize(bytes: Uint8Array): Size {
  const isPng =
    bytes.length >= 24 &&
    SIGNATURE.every((byte, index) => bytes[index] === byte) &&
    String.fromCharCode(...bytes.subarray(12, 16)) === 'IHDR';
  if (!isPng) throw new ComputerUseError('The image is not a PNG');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** `size` shrunk, keeping its aspect ratio, so that neither side is over `max`; unchanged if it fits. */
export function fitSize(size: Size, max: number): Size {
  const factor = Math.min(1, max / size.width, max / size.height);
  if (factor === 1) return { width: size.width, height: size.height };
  return {
    width: Math.max(1, Math.round(size.width * factor)),
    height: Math.max(1, Math.round(size.height * factor)),
  };
}

/** `png` shrunk so that neither side is over `max` (the same PNG when it fits already). */
export async function fitPng(png: Screenshot, max: number, resize?: Resize): Promise<Screenshot> {
  const target = fitSize(png, max);
  if (target.width === png.width && target.height === png.height) return png;
  const bytes = resize
    ? await resize(png.bytes, target.width, target.height)
    : await canvasResize(png, target, max);
  const made = pngSize(bytes);
  if (made.width !== target.width || made.height !== target.height) {
    throw new ComputerUseError(
      `resize returned a ${made.width}x${made.height} PNG where ${target.width}x${target.height} was asked`,
    );
  }
  return { bytes, width: made.width, height: made.height };
}

/**
 * The part of the canvas API this file uses, read from `globalThis` when a PNG is shrunk: typed here
 * rather than by the DOM lib, so the source also type-checks in programs without it (the platform's).
 */
interface Canvas {
  OffscreenCanvas: new (
    width: number,
    height: number,
  ) => {
    getContext(
      kind: '2d',
    ): { drawImage(image: Bitmap, x: number, y: number, w: number, h: number): void } | null;
    convertToBlob(options: { type: string }): Promise<Blob>;
  };
  createImageBitmap(image: Blob): Promise<Bitmap>;
}

interface Bitmap {
  close(): void;
}

function canvasResize(png: Screenshot, target: Size, max: number): Promise<Uint8Array> {
  const canvas = globalThis as unknown as Partial<Canvas>;
  if (typeof canvas.OffscreenCanvas !== 'function' || typeof canvas.createImageBitmap !== 'function') {
    throw new ComputerUseError(
      `A ${png.width}x${png.height} screenshot is over ${max} pixels a side and this runtime has no OffscreenCanvas to shrink it: pass the resize(png, width, height) option`,
    );
  }
  return drawShrunk(canvas as Canvas, png.bytes, target);
}

async function drawShrunk(api: Canvas, bytes: Uint8Array, target: Size): Promise<Uint8Array> {
  const bitmap = await api.createImageBitmap(
    new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/png' }),
  );
  try {
    const canvas = new api.OffscreenCanvas(target.width, target.height);
    const context = canvas.getContext('2d');
    if (!context)
      throw new ComputerUseError('The OffscreenCanvas has no 2d context to shrink the screen with');
    context.drawImage(bitmap, 0, 0, target.width, target.height);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    return new Uint8Array(await blob.arrayBuffer());
  } finally {
    bitmap.close();
  }
}
