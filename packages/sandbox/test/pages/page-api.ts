import type { ScreenPageApi } from './page-window.js';

// Fills the page's part of `ScreenPageApi` from the canvas noVNC draws in.

export function exposeCanvas(screenEvents: string[]): ScreenPageApi {
  const canvas = () => document.querySelector('canvas') ?? undefined;
  return {
    screenEvents,
    canvasColour(x, y) {
      const data = canvas()?.getContext('2d')?.getImageData(x, y, 1, 1).data;
      return data ? [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0] : undefined;
    },
    canvasBox() {
      const found = canvas();
      if (!found) return undefined;
      const rect = found.getBoundingClientRect();
      return { left: rect.left, top: rect.top, width: rect.width, naturalWidth: found.width };
    },
  };
}
