// A desktop for tests and examples: records every call in order, serves real PNGs (made with pngjs)
// of its screen size, and fails a chosen method the way the API refuses (an error with `code`).

import { PNG } from 'pngjs';
import type {
  AccessibilityAction,
  AccessibilityTreeOptions,
  ClickOptions,
  DesktopActions,
  DesktopStatus,
  DragOptions,
  Keys,
  Point,
  Region,
  Screenshot,
  ScrollOptions,
} from '../../src/desktop-types.ts';

export type DesktopMethod =
  | Exclude<keyof DesktopActions, 'accessibility'>
  | 'accessibility.tree'
  | 'accessibility.act';

export interface RecordedCall {
  method: DesktopMethod;
  args: unknown[];
}

/** An error shaped like the client's `ApiError`: what the API answers when it refuses. */
export class RefusedByDesktop extends Error {
  override name = 'RefusedByDesktop';
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RecordingDesktopOptions {
  width?: number;
  height?: number;
  /** Whether the desktop is running at the start; `start()` starts it. */
  running?: boolean;
  /** Where the pointer is. */
  cursor?: Point;
}

export class RecordingDesktop implements DesktopActions {
  readonly calls: RecordedCall[] = [];
  width: number;
  height: number;
  running: boolean;
  pointer: Point;
  /** Text typed so far, for examples that check what a model wrote. */
  typed = '';
  readonly #failures = new Map<DesktopMethod, Error>();

  constructor(options: RecordingDesktopOptions = {}) {
    this.width = options.width ?? 1280;
    this.height = options.height ?? 800;
    this.running = options.running ?? true;
    this.pointer = options.cursor ?? { x: 0, y: 0 };
  }

  /** The next call of `method` rejects with `error` (recorded all the same). */
  failNext(method: DesktopMethod, error: Error): void {
    this.#failures.set(method, error);
  }

  /** The recorded calls' method names, in order. */
  methods(): DesktopMethod[] {
    return this.calls.map((call) => call.method);
  }

  async status(): Promise<DesktopStatus> {
    this.#record('status', []);
    return this.#status();
  }

  async screenshot(options?: { region?: Region }): Promise<Screenshot> {
    this.#record('screenshot', options === undefined ? [] : [options]);
    this.#requireRunning();
    const region = options?.region;
    if (!region) return makePng(this.width, this.height);
    // The region scaled up to fit the screen keeping its aspect ratio, as the desktop answers it.
    const [x0, y0, x1, y1] = region;
    const factor = Math.min(this.width / (x1 - x0), this.height / (y1 - y0));
    return makePng(Math.round((x1 - x0) * factor), Math.round((y1 - y0) * factor));
  }

  async start(options?: { resolution?: string }): Promise<DesktopStatus> {
    this.#record('start', options === undefined ? [] : [options]);
    this.running = true;
    return this.#status();
  }

  async stop(): Promise<DesktopStatus> {
    this.#record('stop', []);
    this.running = false;
    return this.#status();
  }

  async click(options?: ClickOptions): Promise<void> {
    this.#record('click', options === undefined ? [] : [options]);
    this.#requireRunning();
    if (options?.x !== undefined && options.y !== undefined) this.pointer = { x: options.x, y: options.y };
  }

  async move(point: Point): Promise<void> {
    this.#record('move', [point]);
    this.#requireRunning();
    this.pointer = { x: point.x, y: point.y };
  }

  async mouseDown(): Promise<void> {
    this.#record('mouseDown', []);
    this.#requireRunning();
  }

  async mouseUp(): Promise<void> {
    this.#record('mouseUp', []);
    this.#requireRunning();
  }

  async drag(options: DragOptions): Promise<void> {
    this.#record('drag', [options]);
    this.#requireRunning();
    this.pointer = { ...options.to };
  }

  async scroll(options: ScrollOptions): Promise<void> {
    this.#record('scroll', [options]);
    this.#requireRunning();
  }

  async type(text: string): Promise<void> {
    this.#record('type', [text]);
    this.#requireRunning();
    this.typed += text;
  }

  async key(keys: Keys, options?: { repeat?: number }): Promise<void> {
    this.#record('key', options === undefined ? [keys] : [keys, options]);
    this.#requireRunning();
  }

  async hold(keys: Keys, seconds: number): Promise<void> {
    this.#record('hold', [keys, seconds]);
    this.#requireRunning();
  }

  async cursor(): Promise<Point> {
    this.#record('cursor', []);
    this.#requireRunning();
    return { ...this.pointer };
  }

  async open(urls: string | readonly string[]): Promise<void> {
    this.#record('open', [urls]);
    this.#requireRunning();
  }

  readonly accessibility = {
    tree: async (options?: AccessibilityTreeOptions): Promise<unknown> => {
      this.#record('accessibility.tree', options === undefined ? [] : [options]);
      this.#requireRunning();
      return { role: 'desktop', children: [] };
    },
    act: async (action: AccessibilityAction): Promise<unknown> => {
      this.#record('accessibility.act', [action]);
      this.#requireRunning();
      return { done: action.action };
    },
  };

  #record(method: DesktopMethod, args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.#failures.get(method);
    if (failure) {
      this.#failures.delete(method);
      throw failure;
    }
  }

  #requireRunning(): void {
    if (!this.running) {
      throw new RefusedByDesktop('no_desktop', 409, 'The desktop is not running: start it first');
    }
  }

  #status(): DesktopStatus {
    if (!this.running) return { running: false };
    return {
      running: true,
      size: `${this.width}x${this.height}`,
      display: ':1',
      vnc_port: 5901,
      devtools: 'http://127.0.0.1:9222',
      browser: 'chromium',
    };
  }
}

const made = new Map<string, Screenshot>();

/** A real PNG of `width` x `height`: a gradient, so a resized copy can be told apart. */
export function makePng(width: number, height: number): Screenshot {
  const key = `${width}x${height}`;
  const cached = made.get(key);
  if (cached) return { ...cached };
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 4;
      png.data[offset] = Math.floor((x * 255) / Math.max(1, width - 1));
      png.data[offset + 1] = Math.floor((y * 255) / Math.max(1, height - 1));
      png.data[offset + 2] = 128;
      png.data[offset + 3] = 255;
    }
  }
  const shot = { bytes: new Uint8Array(PNG.sync.write(png)), width, height };
  made.set(key, shot);
  return { ...shot };
}

/** Reads a PNG given as base64 (as adapters send it): its size and pixels. */
export function readPng(base64: string): PNG {
  return PNG.sync.read(Buffer.from(base64, 'base64'));
}

/** `resize` for Node, which has no OffscreenCanvas: nearest-neighbour scaling with pngjs. */
export function pngjsResize(bytes: Uint8Array, width: number, height: number): Uint8Array {
  const source = PNG.sync.read(Buffer.from(bytes));
  const out = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    const sy = Math.min(source.height - 1, Math.floor((y * source.height) / height));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(source.width - 1, Math.floor((x * source.width) / width));
      source.data.copy(
        out.data,
        (y * width + x) * 4,
        (sy * source.width + sx) * 4,
        (sy * source.width + sx) * 4 + 4,
      );
    }
  }
  return new Uint8Array(PNG.sync.write(out));
}
