// What the test pages put on `window` for the browser test to read and drive; a file without DOM
// types, so the test in Node can import it (page-api.ts fills it in the page).

export interface ScreenPageApi {
  /** `connect` and `disconnect clean=<bool>`, in order. */
  screenEvents: string[];
  /** The colour the canvas shows at a desktop position (noVNC draws at the desktop's size). */
  canvasColour(x: number, y: number): [number, number, number] | undefined;
  /** Where the canvas is on the page, and its shown size over its own. */
  canvasBox(): { left: number; top: number; width: number; naturalWidth: number } | undefined;
}
