import { randomBytes } from 'node:crypto';
import { type Region, regionOutputSize, type ScreenSize } from '../../domain/sandboxes/screen-geometry.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { desktopDir, runShellOk, shellWords } from './shell.ts';

// The screen as a PNG (spec, "Desktop methods": `screenshot({ region? })`): ImageMagick's
// `import` reads the X display's root window inside the sandbox; a region is cropped and scaled
// up to fit the screen size with its aspect ratio kept (`regionOutputSize` gives the exact size,
// forced with `!` so rounding never differs from the rule). Always 8-bit RGB (`PNG24`), so every
// screenshot has the same pixel format whatever its colours. The file goes through the sandbox's
// files, not exec's output, which is text.

export interface Screenshot {
  png: Buffer;
  width: number;
  height: number;
}

/** `import`'s arguments for the whole screen or a region of it, writing `file`. */
export function importArgs(screen: ScreenSize, region: Region | undefined, file: string): string[] {
  const png = ['-define', 'png:compression-level=1', `PNG24:${file}`];
  if (region === undefined) return ['import', '-silent', '-window', 'root', ...png];
  const [x0, y0, x1, y1] = region;
  const out = regionOutputSize(screen, region);
  return [
    ...['import', '-silent', '-window', 'root', '-crop', `${x1 - x0}x${y1 - y0}+${x0}+${y0}`, '+repage'],
    ...['-resize', `${out.width}x${out.height}!`, ...png],
  ];
}

/** Width and height from the PNG's IHDR chunk. */
export function pngSize(png: Uint8Array): ScreenSize {
  const view = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (view.length < 24 || view.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
}

export async function takeScreenshot(
  runtime: SandboxRuntime,
  sandboxId: string,
  screen: ScreenSize,
  region: Region | undefined,
): Promise<Screenshot> {
  const file = `${desktopDir}/screenshot-${randomBytes(6).toString('hex')}.png`;
  try {
    await runShellOk(runtime, sandboxId, shellWords(importArgs(screen, region, file)));
    const bytes = await runtime.readFile(sandboxId, file);
    const png = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { png, ...pngSize(png) };
  } finally {
    await runShellOk(runtime, sandboxId, shellWords(['rm', '-f', file])).catch(() => {});
  }
}
