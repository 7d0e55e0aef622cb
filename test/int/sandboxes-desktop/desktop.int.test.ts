import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InputAction } from '../../../domain/sandboxes/input-actions.ts';
import { regionOutputSize } from '../../../domain/sandboxes/screen-geometry.ts';
import { createDesktop, type DesktopInfo } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import {
  colours,
  findNode,
  givenDesktop,
  node,
  openTestPage,
  prepareTimeoutMs,
  refusal,
  sameColour,
  screen,
  serveTestPage,
  tree,
} from './given.ts';
import { type Box, centre, decodePng, findColour } from './png.ts';

// One desktop at the default 1280x800, started once, driven like a person would: find the button
// on the screenshot, click it, see the page change on the next screenshot and in the
// accessibility tree; type, press keys, scroll; then the refusals and stop.

const given = givenDesktop('desktop');
const { runtime, desktop, id } = given;
let info: DesktopInfo;
let startMs: number;
let button: Box;

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
  const started = Date.now();
  info = await desktop.start(id, { width: 1280, height: 800 });
  startMs = Date.now() - started;
  await serveTestPage(given);
  button = await openTestPage(given);
}, prepareTimeoutMs);
afterAll(given.cleanup);

const click = (x: number, y: number) =>
  desktop.input(id, { action: 'click', x, y, button: 'left', count: 1 });

describe('a desktop at the default resolution', () => {
  it('is ready within 60 s and says what runs', async () => {
    expect(startMs).toBeLessThan(60_000);
    expect(info).toMatchObject({
      display: ':1',
      width: 1280,
      height: 800,
      vncPort: 5900,
      devtoolsPort: 9222,
    });
    expect(info.browser).toMatch(/^chromium \d+\.\d+\.\d+\.\d+$/);
    expect(await desktop.status(id)).toEqual(info);
    const { result } = await runtime.exec(id, 'ps -e -o args=');
    expect(result.stdout).toContain('Xvfb :1 -screen 0 1280x800x24');
    expect(result.stdout).toMatch(/^x11vnc -display :1 -rfbport 5900 -localhost .*-nopw/m);
    expect(result.stdout).toMatch(/^openbox --config-file /m);
    expect(result.stdout).toContain('--remote-debugging-port=9222');
  });

  it('clicks the button found on the screenshot; the page turns magenta and the button says so', async () => {
    const before = await screen(given);
    expect(sameColour(before.pixel(700, 600), [255, 255, 255])).toBe(true);
    const at = centre(button);
    expect(await click(at.x, at.y)).toEqual({ done: 'click' });
    await eventually(async () =>
      sameColour((await screen(given)).pixel(700, 600), colours.clicked) ? true : undefined,
    );
    await node(given, 'button', 'Clicked');
  });

  it('types exactly, non-ASCII and shell characters included, into the field clicked', async () => {
    const field = findColour(await screen(given), colours.field);
    if (!field) throw new Error('no yellow field on the screen');
    await click(centre(field).x, centre(field).y);
    const text = `héllo wörld — ✓ 日本語 Ünïcödé 😀 "quotes" 'single' $HOME \`cmd\` \\ -x`;
    expect(await desktop.input(id, { action: 'type', text })).toEqual({ done: 'type' });
    expect((await node(given, 'textbox', 'Name')).value).toBe(text);
  });

  it('types newlines as Return into a text area, and long text exactly', async () => {
    const notes = findColour(await screen(given), colours.notes);
    if (!notes) throw new Error('no cyan text area on the screen');
    await click(centre(notes).x, centre(notes).y);
    const lines = Array.from(
      { length: 20 },
      (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog é`,
    );
    const text = lines.join('\n');
    const started = Date.now();
    await desktop.input(id, { action: 'type', text });
    console.log(`typed ${Buffer.byteLength(text)} bytes in ${Date.now() - started} ms`);
    expect((await node(given, 'textbox', 'Notes')).value).toBe(text);
  });

  it('presses keys and combinations in turn, with repeat', async () => {
    const field = await node(given, 'textbox', 'Name');
    await desktop.accessibilityAct(id, { ref: field.ref, action: 'focus' });
    await desktop.input(id, { action: 'key', keys: ['ctrl+a', 'BackSpace'], repeat: 1 });
    await desktop.input(id, { action: 'type', text: 'abc' });
    expect(await desktop.input(id, { action: 'key', keys: ['Left'], repeat: 2 })).toEqual({ done: 'key' });
    await desktop.input(id, { action: 'type', text: 'X' });
    expect((await node(given, 'textbox', 'Name')).value).toBe('aXbc');
    await desktop.input(id, { action: 'key', keys: ['End', 'shift+Home'], repeat: 1 });
    await desktop.input(id, { action: 'type', text: 'replaced' });
    expect((await node(given, 'textbox', 'Name')).value).toBe('replaced');
  });

  it('holds keys for the seconds asked', async () => {
    const started = Date.now();
    expect(await desktop.input(id, { action: 'hold', keys: ['shift'], seconds: 0.5 })).toEqual({
      done: 'hold',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('scrolls with the wheel at a position, down and back up', async () => {
    expect(findColour(await screen(given), colours.band)).toBeUndefined();
    const down = { action: 'scroll', direction: 'down', amount: 10, x: 640, y: 500 } as const;
    expect(await desktop.input(id, down)).toEqual({ done: 'scroll' });
    await eventually(async () => findColour(await screen(given), colours.band), 10_000, 'the green band');
    expect((await tree(given)).name).toMatch(/^scrolled [1-9]\d*$/);
    await desktop.input(id, { action: 'scroll', direction: 'up', amount: 20 });
    await eventually(async () => ((await tree(given)).name === 'scrolled 0' ? true : undefined));
  });

  it('moves, presses and releases the pointer, drags, and answers where it is', async () => {
    expect(await desktop.input(id, { action: 'move', x: 900, y: 700 })).toEqual({ done: 'move' });
    expect(await desktop.input(id, { action: 'cursor' })).toEqual({ x: 900, y: 700 });
    expect(await desktop.input(id, { action: 'down' })).toEqual({ done: 'down' });
    expect(await desktop.input(id, { action: 'up' })).toEqual({ done: 'up' });
    const drag: InputAction = { action: 'drag', x: 900, y: 700, to_x: 1000, to_y: 650, modifiers: ['shift'] };
    expect(await desktop.input(id, drag)).toEqual({ done: 'drag' });
    expect(await desktop.input(id, { action: 'cursor' })).toEqual({ x: 1000, y: 650 });
  });

  it('takes a region scaled up to the screen with its aspect ratio kept', async () => {
    const whole = await desktop.screenshot(id);
    expect({ width: whole.width, height: whole.height }).toEqual({ width: 1280, height: 800 });
    const region = [button.x0, button.y0, button.x1, button.y1] as const;
    const shot = await desktop.screenshot(id, region);
    const expected = regionOutputSize({ width: 1280, height: 800 }, region);
    expect({ width: shot.width, height: shot.height }).toEqual(expected);
    const image = decodePng(shot.png);
    expect({ width: image.width, height: image.height }).toEqual(expected);
    // The button is blue at its edges (its label is in the middle).
    expect(image.pixel(10, 10)).toEqual(colours.button);
    expect(image.pixel(expected.width - 10, expected.height - 10)).toEqual(colours.button);
    const tall = await desktop.screenshot(id, [0, 0, 100, 400]);
    expect({ width: tall.width, height: tall.height }).toEqual({ width: 200, height: 800 });
  });

  it('refuses positions and regions outside the screen, naming the field', async () => {
    const outside = await refusal(desktop.input(id, { action: 'move', x: 1280, y: 10 }));
    expect(outside).toMatchObject({ code: 'invalid_request', param: 'x' });
    const drag = { action: 'drag', x: 1, y: 1, to_x: 5, to_y: 800 } as const;
    expect(await refusal(desktop.input(id, drag))).toMatchObject({ code: 'invalid_request', param: 'to_y' });
    const region = await refusal(desktop.screenshot(id, [0, 0, 1281, 10]));
    expect(region).toMatchObject({ code: 'invalid_request', param: 'region' });
  });

  it('acts on accessibility nodes and refuses a node that is gone or an action it does not list', async () => {
    const field = await node(given, 'textbox', 'Name');
    expect(
      await desktop.accessibilityAct(id, { ref: field.ref, action: 'set-text', text: 'set by ref' }),
    ).toEqual({
      ref: field.ref,
      action: 'set-text',
      ok: true,
    });
    expect(await desktop.accessibilityAct(id, { ref: field.ref, action: 'read' })).toMatchObject({
      value: 'set by ref',
    });
    const remove = await node(given, 'button', 'Remove me');
    await desktop.accessibilityAct(id, { ref: remove.ref, action: 'press' });
    expect(findNode(await tree(given), (n) => n.name === 'Remove me')).toBeUndefined();
    const gone = await refusal(desktop.accessibilityAct(id, { ref: remove.ref, action: 'press' }));
    expect(gone.code).toBe('desktop_refused');
    expect(gone.message).toMatch(/read the accessibility tree again/);
    const clicked = await node(given, 'button', 'Clicked');
    const unlisted = await refusal(
      desktop.accessibilityAct(id, { ref: clicked.ref, action: 'set-text', text: 'x' }),
    );
    expect(unlisted.code).toBe('desktop_refused');
  });

  it('is found again by a new instance, as after a restart of the API', async () => {
    const again = createDesktop(runtime);
    expect(await again.status(id)).toEqual(info);
    expect((await again.screenshot(id)).width).toBe(1280);
  });

  it('refuses with not_running while the sandbox is stopped, and runs on after resume', async () => {
    await runtime.stop(id);
    expect((await refusal(desktop.input(id, { action: 'cursor' }))).code).toBe('not_running');
    expect((await refusal(desktop.screenshot(id))).code).toBe('not_running');
    await runtime.resume(id);
    expect(await desktop.status(id)).toEqual(info);
    await node(given, 'button', 'Clicked');
  });

  it('stops: status says not running and every action is no_desktop', async () => {
    await desktop.stop(id);
    expect(await desktop.status(id)).toBeUndefined();
    expect((await refusal(desktop.input(id, { action: 'cursor' }))).code).toBe('no_desktop');
    expect((await refusal(desktop.screenshot(id))).code).toBe('no_desktop');
    expect((await refusal(tree(given))).code).toBe('no_desktop');
    expect((await refusal(desktop.connectVnc(id))).code).toBe('no_desktop');
    const { result } = await runtime.exec(id, 'ps -e -o comm=');
    expect(result.stdout).not.toMatch(/Xvfb|x11vnc|openbox|chromium|chrome_crashpad|tint2|dbus|at-spi/);
  });

  it('fails a start whose browser exits, with what the browser said, and leaves nothing running', async () => {
    const broken =
      "mv /usr/bin/chromium /usr/bin/chromium.real && printf '#!/bin/sh\\necho no display for me >&2\\nexit 3\\n' > /usr/bin/chromium && chmod +x /usr/bin/chromium";
    expect((await runtime.exec(id, broken)).result.exit_code).toBe(0);
    try {
      await expect(desktop.start(id, { width: 1280, height: 800 })).rejects.toThrow(
        /the desktop did not start: exit 1: chromium exited:\nno display for me/,
      );
      expect(await desktop.status(id)).toBeUndefined();
      const { result } = await runtime.exec(id, 'ps -e -o comm=');
      expect(result.stdout).not.toMatch(/Xvfb|x11vnc|openbox|dbus/);
    } finally {
      await runtime.exec(id, 'mv /usr/bin/chromium.real /usr/bin/chromium');
    }
  });
});
