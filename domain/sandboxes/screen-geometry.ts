import type { Checked } from './checked.ts';

// Screen sizes, regions and positions (spec, "Desktop methods of the client package": `start`
// resolution, the `region` argument shape; "Limits": desktop resolution).

export interface ScreenSize {
  width: number;
  height: number;
}

/** `[x0, y0, x1, y1]`: top-left corner and the exclusive bottom-right edge, so `[0, 0, 1280, 800]` is a whole 1280x800 screen. */
export type Region = readonly [number, number, number, number];

export const resolutionLimits = {
  width: { min: 320, max: 1920 },
  height: { min: 240, max: 1080 },
} as const;

export const defaultResolution: ScreenSize = { width: 1280, height: 800 };

const resolutionPattern = /^(\d{1,5})x(\d{1,5})$/;

/** `WIDTHxHEIGHT` within the limits, e.g. `1280x800`. */
export function parseResolution(text: string): Checked<ScreenSize> {
  const match = resolutionPattern.exec(text);
  if (!match)
    return { ok: false, message: `resolution must look like \`1280x800\` (WIDTHxHEIGHT), not \`${text}\`` };
  const size = { width: Number(match[1]), height: Number(match[2]) };
  for (const axis of ['width', 'height'] as const) {
    const { min, max } = resolutionLimits[axis];
    if (size[axis] < min || size[axis] > max) {
      return {
        ok: false,
        message: `resolution ${axis} must be from ${min} to ${max}; ${size[axis]} is outside`,
      };
    }
  }
  return { ok: true, value: size };
}

export function formatResolution(size: ScreenSize): string {
  return `${size.width}x${size.height}`;
}

/** The region must have an area and lie inside the screen. */
export function checkRegion(screen: ScreenSize, region: Region): Checked<Region> {
  const [x0, y0, x1, y1] = region;
  if (x1 <= x0 || y1 <= y0) return { ok: false, message: 'region must have x1 > x0 and y1 > y0' };
  if (x0 < 0 || y0 < 0 || x1 > screen.width || y1 > screen.height) {
    return {
      ok: false,
      message: `region must lie inside the ${formatResolution(screen)} screen: 0 ≤ x0 < x1 ≤ ${screen.width}, 0 ≤ y0 < y1 ≤ ${screen.height}`,
    };
  }
  return { ok: true, value: region };
}

/**
 * Size of the PNG for a region: the region scaled up to fit the screen size, aspect ratio kept.
 * The side that limits the scale gets the screen's exact size; the other is rounded to the
 * nearest pixel (halves up), so it never exceeds the screen and is never below the region's.
 * Integer cross-multiplication picks the limiting side without floating-point doubt.
 */
export function regionOutputSize(screen: ScreenSize, region: Region): ScreenSize {
  const [x0, y0, x1, y1] = region;
  const width = x1 - x0;
  const height = y1 - y0;
  if (width * screen.height >= height * screen.width) {
    return { width: screen.width, height: Math.round((height * screen.width) / width) };
  }
  return { width: Math.round((width * screen.height) / height), height: screen.height };
}

/** Which axis each position field of an input action measures. */
const positionFields = { x: 'width', y: 'height', to_x: 'width', to_y: 'height' } as const;

/** The first position field of an input action outside the screen, as `{ param, message }`. */
export function positionOutsideScreen(
  screen: ScreenSize,
  input: Partial<Record<keyof typeof positionFields, number>>,
): { param: string; message: string } | undefined {
  for (const [param, axis] of Object.entries(positionFields) as [
    keyof typeof positionFields,
    'width' | 'height',
  ][]) {
    const value = input[param];
    if (value !== undefined && value >= screen[axis]) {
      const last = screen[axis] - 1;
      return {
        param,
        message: `\`${param}\` must be from 0 to ${last} on this ${formatResolution(screen)} screen`,
      };
    }
  }
  return undefined;
}
