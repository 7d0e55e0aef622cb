import { z } from 'zod';
import { refPattern } from './accessibility.ts';
import type { Checked } from './checked.ts';
import { checkedString, queryBoolean, queryIntIn, textUpToBytes } from './fields.ts';
import { parseResolution, type Region } from './screen-geometry.ts';

// Bodies and queries of the desktop routes other than input (spec, "Endpoints"; "Desktop
// methods of the client package"; "Limits": desktop resolution, accessibility depth).

/** `start` takes an optional resolution (default 1280x800, applied by `decide`); `stop` takes nothing. */
export const desktopActionBody = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('start'), resolution: checkedString(parseResolution).optional() }),
  z.strictObject({ action: z.literal('stop') }),
]);
export type DesktopActionBody = z.output<typeof desktopActionBody>;

/** `x0,y0,x1,y1`: four whole pixels, with an area; inside the screen is checked by `checkRegion`. */
export function parseRegionQuery(text: string): Checked<Region> {
  const parts = text.split(',');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,5}$/.test(part))) {
    return { ok: false, message: 'send four whole pixels as `x0,y0,x1,y1`, e.g. `0,0,640,400`' };
  }
  const [x0, y0, x1, y1] = parts.map(Number) as [number, number, number, number];
  if (x1 <= x0 || y1 <= y0) return { ok: false, message: 'send a region with x1 > x0 and y1 > y0' };
  return { ok: true, value: [x0, y0, x1, y1] };
}

export const screenshotQuery = z.strictObject({ region: checkedString(parseRegionQuery).optional() });
export type ScreenshotQuery = z.output<typeof screenshotQuery>;

export const accessibilityLimits = { depth: { min: 1, max: 200, default: 200 }, appLength: 200 } as const;

/**
 * `app` names the application whose tree to read (by default the desktop's browser, its active
 * tab); `depth` cuts the tree, counted from its root as 1; `include_hidden=true` keeps nodes that
 * are not shown (accessibility.ts).
 */
export const accessibilityQuery = z.strictObject({
  app: z
    .string()
    .min(1, 'send an application name')
    .max(accessibilityLimits.appLength, 'send at most 200 characters')
    .optional(),
  depth: queryIntIn(accessibilityLimits.depth.min, accessibilityLimits.depth.max).default(
    accessibilityLimits.depth.default,
  ),
  include_hidden: queryBoolean.default(false),
});
export type AccessibilityQuery = z.output<typeof accessibilityQuery>;

/** The standard node actions; a node may list others (accessibility.ts). */
export const standardNodeActions = ['press', 'focus', 'set-text', 'read'] as const;

export const accessibilityActBody = z
  .strictObject({
    ref: z.string().regex(refPattern, 'send a ref from the tree, such as `e12`'),
    action: z
      .string()
      .regex(/^[a-z][a-z-]{0,39}$/, 'send `press`, `focus`, `set-text`, `read`, or an action the node lists'),
    text: textUpToBytes(10_000).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'set-text' && body.text === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['text'],
        input: undefined,
        message: 'send the text to set with `set-text`',
      });
    }
  });
export type AccessibilityActBody = z.output<typeof accessibilityActBody>;
