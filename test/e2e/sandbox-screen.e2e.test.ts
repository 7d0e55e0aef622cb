import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenPageApi } from '../../packages/sandbox/test/pages/page-window.ts';
import { createDesktop } from '../../sandbox-runtime/desktop/index.ts';
import { launchChromium } from '../harness/browser.ts';
import { eventually } from '../harness/platform.ts';
import { serveStatic } from '../harness/static-server.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../int/sandboxes/given.ts';
import { colours, openTestPage, screen, serveTestPage } from '../int/sandboxes-desktop/given.ts';
import type { Box } from '../int/sandboxes-desktop/png.ts';

// `@orrery/sandbox/screen` and `/react` as users ship them (issue 14, items 5 and 6): the package
// built to dist/, two pages built with Vite that import it by name, a plain page that imports it
// through an import map, real Chromium, the API on a loopback port and a real desktop showing the
// test page. The canvas shows the desktop; a click on it reaches the desktop in `control` mode and
// not in `view` mode; `setMode` and a new `mode` prop switch on the same connection;
// `onDisconnect` fires once when the token expires, with the close's code and reason.

const pages = join(import.meta.dirname, '../../packages/sandbox/test/pages');
let api: SandboxApi;
let browser: Browser;
let desktop: ReturnType<typeof createDesktop>;
let id: string;
let baseUrl: string;
let origin: string;
let stopPages: () => Promise<void>;
let button: Box;
const built = mkdtempSync(join(tmpdir(), 'orrery-screen-pages-'));

beforeAll(async () => {
  const tsc = spawnSync('npx', ['tsc', '-p', 'packages/sandbox/tsconfig.build.json'], { encoding: 'utf8' });
  expect(tsc.status, `the package builds: ${tsc.stdout}${tsc.stderr}`).toBe(0);
  await build({
    root: pages,
    logLevel: 'warn',
    build: {
      outDir: built,
      emptyOutDir: true,
      rollupOptions: { input: { screen: join(pages, 'screen.html'), react: join(pages, 'react.html') } },
    },
  });
  ({ origin, stop: stopPages } = await serveStatic({
    '/': built,
    '/plain/': pages,
    '/sandbox/': join(pages, '../../dist'),
    '/novnc/': join(pages, '../../../../node_modules/@novnc/novnc'),
    '/openapi-fetch/': join(pages, '../../../../node_modules/openapi-fetch'),
  }));
  browser = await launchChromium((line) => process.stderr.write(`[browser] ${line}\n`));
  api = await givenSandboxApi((runtime) => {
    desktop = createDesktop(runtime);
    return { desktop };
  });
  baseUrl = api.baseUrl;
  id = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data.id;
  const started = await api.call('POST', `/api/sandboxes/${id}/desktop`, { body: { action: 'start' } });
  expect(started.statusCode, started.body).toBe(200);
  await serveTestPage({ runtime: api.runtime, id });
}, prepareTimeoutMs);

afterAll(async () => {
  await browser?.close();
  await stopPages?.();
  await api?.cleanup();
  rmSync(built, { recursive: true, force: true });
});

async function grant(abilities: ['view'] | ['control'], expiresIn = 900, origins = [origin]) {
  const body = { abilities, expires_in: expiresIn, origins };
  const minted = await api.call('POST', `/api/sandboxes/${id}/tokens`, { body });
  expect(minted.statusCode, minted.body).toBe(201);
  return minted.json().data as { token: string; sandbox: string; abilities: string[] };
}

async function token(abilities: ['view'] | ['control'], expiresIn = 900): Promise<string> {
  return (await grant(abilities, expiresIn)).token;
}

type Rgb = readonly [number, number, number];
/** The test page's window (packages/sandbox/test/pages); functions passed to `evaluate` run there. */
type PageWindow = ScreenPageApi & {
  mounted: { setMode(mode: string): void; disconnect(): void };
  /** screen.html only: the close's code and reason `onDisconnect` was given. */
  closedWith(): { code?: number; reason?: string } | undefined;
  renderScreen(props: Record<string, string>): Promise<void>;
};

const events = (page: Page) => page.evaluate(() => (globalThis as unknown as PageWindow).screenEvents);
const canvasColour = (page: Page, at: { x: number; y: number }) =>
  page.evaluate(({ x, y }) => (globalThis as unknown as PageWindow).canvasColour(x, y), at);

/** noVNC asks for JPEG-compressed updates by default: the canvas's colours are near, not exact. */
const nearColour = (actual: Rgb, expected: Rgb) =>
  actual.every((value, i) => Math.abs(value - expected[i]!) <= 24);

async function canvasShows(page: Page, at: { x: number; y: number }, colour: Rgb, what: string) {
  let shown: Rgb | undefined;
  try {
    await eventually(
      async () => {
        shown = await canvasColour(page, at);
        return shown && nearColour(shown, colour) ? true : undefined;
      },
      20_000,
      what,
    );
  } catch (error) {
    const box = await page.evaluate(() => (globalThis as unknown as PageWindow).canvasBox());
    throw new Error(
      `${(error as Error).message}: at ${at.x},${at.y} the canvas shows ${shown} (${JSON.stringify(box)})`,
    );
  }
}

/** Clicks the page where the scaled canvas shows a desktop position. */
async function clickCanvasAt(page: Page, at: { x: number; y: number }): Promise<void> {
  const box = await page.evaluate(() => (globalThis as unknown as PageWindow).canvasBox());
  if (!box) throw new Error('no canvas on the page');
  const scale = box.width / box.naturalWidth;
  await page.mouse.click(box.left + (at.x + 0.5) * scale, box.top + (at.y + 0.5) * scale);
}

const input = (body: Record<string, unknown>) =>
  api.call('POST', `/api/sandboxes/${id}/desktop/input`, { body });

/** Waits until the desktop's pointer is at a position (within the canvas's scaling). */
const pointerReaches = (at: { x: number; y: number }) =>
  eventually(
    async () => {
      const { x, y } = (await input({ action: 'cursor' })).json().data;
      return Math.abs(x - at.x) <= 2 && Math.abs(y - at.y) <= 2 ? true : undefined;
    },
    10_000,
    `the pointer at ${at.x},${at.y}`,
  );

/** The test page afresh, in a new tab: its button blue, the page not yet clicked. */
async function freshTestPage(): Promise<void> {
  button = await openTestPage({ desktop, id });
}

/**
 * A click on the button in `view` mode, then a click on the text field in `control` mode on the
 * same connection: once the pointer reaches the field, the first click would have arrived before
 * it (one WebSocket, in order), so a page still white means it was never sent. A second `control`
 * click on the button then turns the page magenta.
 */
async function viewThenControl(page: Page, toControl: () => Promise<void>): Promise<void> {
  // Inside the button, clear of its label (the centre is the label's white text).
  const onButton = { x: button.x0 + 12, y: button.y0 + 12 };
  // The text field lies 40 px below the button; the page's background right of the button.
  const onField = { x: onButton.x, y: button.y1 + 60 };
  const onBackground = { x: button.x1 + 100, y: onButton.y };
  await canvasShows(page, onButton, colours.button, 'the button on the canvas');
  await clickCanvasAt(page, onButton);
  await toControl();
  await clickCanvasAt(page, onField);
  await pointerReaches(onField);
  const desktopShows = await screen({ desktop, id });
  expect(desktopShows.pixel(onBackground.x, onBackground.y)).toEqual([255, 255, 255]);
  await clickCanvasAt(page, onButton);
  await canvasShows(page, onBackground, colours.clicked, 'the page turned magenta on the canvas');
}

describe('mountScreen in a page built with Vite', () => {
  it('shows the desktop scaled to its element; view mode sends no input, setMode switches on the same connection', async () => {
    await freshTestPage();
    const page = await browser.newPage();
    const query = new URLSearchParams({ token: await token(['control']), sandbox: id, baseUrl });
    await page.goto(`${origin}/screen.html?${query}`);
    await eventually(
      async () => ((await events(page)).includes('connect') ? true : undefined),
      20_000,
      'connect',
    );
    const box = await page.evaluate(() => (globalThis as unknown as PageWindow).canvasBox());
    expect(box).toMatchObject({ naturalWidth: 1280, width: 640 });
    // The 640x400 screen in a 640x480 element: the band above it shows the `background` option.
    const band = PNG.sync.read(await page.screenshot({ clip: { x: 320, y: 10, width: 1, height: 1 } }));
    expect([...band.data.subarray(0, 3)]).toEqual([10, 20, 30]);
    await viewThenControl(page, () =>
      page.evaluate(() => (globalThis as unknown as PageWindow).mounted.setMode('control')),
    );
    expect(await events(page)).toEqual(['connect']);
    await page.evaluate(() => (globalThis as unknown as PageWindow).mounted.disconnect());
    await eventually(
      async () => ((await events(page)).length === 2 ? true : undefined),
      10_000,
      'disconnect',
    );
    expect(await events(page)).toEqual(['connect', 'disconnect clean=true']);
    await page.close();
  }, 90_000);

  it("calls onDisconnect once, clean, with the close's reason, when the token expires", async () => {
    const short = await token(['view'], 60);
    api.clock.advance(57);
    try {
      const page = await browser.newPage();
      await page.goto(`${origin}/screen.html?${new URLSearchParams({ token: short, sandbox: id, baseUrl })}`);
      await eventually(
        async () => ((await events(page)).length === 2 ? true : undefined),
        20_000,
        'disconnect',
      );
      expect(await page.evaluate(() => (globalThis as unknown as PageWindow).closedWith())).toEqual({
        code: 1000,
        reason: 'token expired',
      });
      // Disconnecting after the end does not report it again.
      await page.evaluate(() => (globalThis as unknown as PageWindow).mounted.disconnect());
      expect(await events(page)).toEqual(['connect', 'disconnect clean=true']);
      await page.close();
    } finally {
      api.clock.advance(-57);
    }
  }, 60_000);
});

describe('mountScreen in a plain page with an import map, no bundler', () => {
  it('loads the built package and noVNC as they are published and shows the desktop', async () => {
    button = await openTestPage({ desktop, id });
    const page = await browser.newPage();
    const query = new URLSearchParams({ token: await token(['view']), sandbox: id, baseUrl });
    await page.goto(`${origin}/plain/plain.html?${query}`);
    await eventually(
      async () => ((await events(page)).includes('connect') ? true : undefined),
      20_000,
      'connect',
    );
    await canvasShows(
      page,
      { x: button.x0 + 12, y: button.y0 + 12 },
      colours.button,
      'the button on the canvas',
    );
    await page.close();
  }, 60_000);
});

describe('Client.fromToken in a browser', () => {
  it("drives the desktop from the page's origin; a view grant refuses control without a request; another origin is refused", async () => {
    const page = await browser.newPage();
    const query = new URLSearchParams({
      baseUrl,
      grant: JSON.stringify(await grant(['view'])),
      elsewhere: (await grant(['view'], 900, ['https://elsewhere.example'])).token,
    });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on(
      'response',
      (answer) => answer.status() >= 400 && problems.push(`${answer.status()} ${answer.url()}`),
    );
    await page.goto(`${origin}/plain/client.html?${query}`);
    const results = await page.evaluate(
      () => (globalThis as unknown as { clientResults: Promise<unknown> }).clientResults,
    );
    expect(results, problems.join('\n')).toEqual({
      running: true,
      screenshot: { width: 1280, height: 800, png: true },
      refusedWithoutRequest: { code: 'insufficient_ability', status: 403 },
      requests: 0,
      otherOrigin: { code: 'origin_refused', status: 403 },
    });
    await page.close();
  }, 60_000);
});

describe('<SandboxScreen> in a React page built with Vite', () => {
  it('keeps the connection for a new mode and connects again for a new token', async () => {
    await freshTestPage();
    const page = await browser.newPage();
    await page.goto(`${origin}/react.html`);
    const render = (props: Record<string, string>) =>
      page.evaluate((p) => (globalThis as unknown as PageWindow).renderScreen(p), props);
    const first = await token(['control']);
    await render({ token: first, sandbox: id, baseUrl, mode: 'view' });
    await eventually(
      async () => ((await events(page)).includes('connect') ? true : undefined),
      20_000,
      'connect',
    );
    await viewThenControl(page, () => render({ token: first, sandbox: id, baseUrl, mode: 'control' }));
    expect(await events(page)).toEqual(['connect']);
    await render({ token: await token(['view']), sandbox: id, baseUrl, mode: 'control' });
    await eventually(
      async () => ((await events(page)).length === 3 ? true : undefined),
      20_000,
      'a new connection',
    );
    expect(await events(page)).toEqual(['connect', 'disconnect clean=true', 'connect']);
    await page.close();
  }, 90_000);
});
