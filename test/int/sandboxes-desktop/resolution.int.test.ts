import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regionOutputSize } from '../../../domain/sandboxes/screen-geometry.ts';
import type { DesktopInfo } from '../../../sandbox-runtime/desktop/index.ts';
import { panelHeight } from '../../../sandbox-runtime/desktop/session.ts';
import { givenDesktop, prepareTimeoutMs, refusal } from './given.ts';
import { decodePng } from './png.ts';

// Resolutions (spec, "Desktop methods": `start({ resolution? })`, width 320 to 1920, height 240
// to 1080): the screen, the screenshot and the browser's window (above the panel) take the size
// asked; a desktop of the same size is kept, another size restarts it. And what is not a
// desktop: a fork, a stopped sandbox.

const given = givenDesktop('resolution');
const { runtime, desktop, id } = given;
let small: DesktopInfo;

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
}, prepareTimeoutMs);
afterAll(given.cleanup);

const displayGeometry = async () =>
  (await runtime.exec(id, 'xdotool getdisplaygeometry', { env: { DISPLAY: ':1' } })).result.stdout.trim();

describe('desktop resolutions', () => {
  it('starts at the size asked: the X screen, the screenshot and the browser window', async () => {
    small = await desktop.start(id, { width: 800, height: 600 });
    expect(small).toMatchObject({ width: 800, height: 600, display: ':1' });
    expect(await displayGeometry()).toBe('800 600');
    const shot = await desktop.screenshot(id);
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 800, height: 600 });
    expect(decodePng(shot.png)).toMatchObject({ width: 800, height: 600 });
    const window = await runtime.exec(
      id,
      'xdotool search --onlyvisible --class chromium getwindowgeometry --shell | grep -E "^(WIDTH|HEIGHT)="',
      { env: { DISPLAY: ':1' } },
    );
    // The browser's window fills the screen above the panel (session.ts), at its top left.
    expect(window.result.stdout).toContain(`WIDTH=800\nHEIGHT=${600 - panelHeight}`);
  });

  it('keeps a running desktop of the same size, and restarts one asked at another size', async () => {
    expect(await desktop.start(id, { width: 800, height: 600 })).toEqual(small);
    const large = await desktop.start(id, { width: 1920, height: 1080 });
    expect(large).toMatchObject({ width: 1920, height: 1080 });
    expect(large.startedAt).not.toBe(small.startedAt);
    expect(await displayGeometry()).toBe('1920 1080');
    const region = [100, 100, 420, 280] as const;
    const shot = await desktop.screenshot(id, region);
    expect({ width: shot.width, height: shot.height }).toEqual(
      regionOutputSize({ width: 1920, height: 1080 }, region),
    );
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 1920, height: 1080 });
    const { result } = await runtime.exec(id, 'ps -e -o comm= | grep -c -x Xvfb');
    expect(result.stdout).toBe('1\n');
  });

  it('refuses a resolution outside the limits, and leaves the desktop as it was', async () => {
    for (const resolution of [
      { width: 319, height: 600 },
      { width: 1921, height: 600 },
      { width: 800, height: 1081 },
    ]) {
      expect(await refusal(desktop.start(id, resolution))).toMatchObject({
        code: 'invalid_request',
        param: 'resolution',
      });
    }
    expect(await desktop.status(id)).toMatchObject({ width: 1920, height: 1080 });
  });

  it('is not in a fork: the fork has the files, not the processes', async () => {
    const forkId = `${id}-fork`;
    await runtime.fork(id, forkId);
    expect(await desktop.status(forkId)).toBeUndefined();
    expect((await refusal(desktop.screenshot(forkId))).code).toBe('no_desktop');
    const started = await desktop.start(forkId, { width: 640, height: 480 });
    expect(started).toMatchObject({ width: 640, height: 480 });
    await desktop.stop(forkId);
    await runtime.destroy(forkId);
    expect(await desktop.status(id)).toMatchObject({ width: 1920, height: 1080 });
  });

  it('refuses to start, stop or read a stopped sandbox with not_running', async () => {
    await runtime.stop(id);
    expect((await refusal(desktop.start(id, { width: 800, height: 600 }))).code).toBe('not_running');
    expect((await refusal(desktop.stop(id))).code).toBe('not_running');
    expect((await refusal(desktop.status(id))).code).toBe('not_running');
    await runtime.resume(id);
    await desktop.stop(id);
    expect(await desktop.status(id)).toBeUndefined();
  });
});
