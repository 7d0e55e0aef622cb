import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfbClient } from '../../harness/rfb-client.ts';
import {
  colours,
  givenDesktop,
  node,
  openTestPage,
  prepareTimeoutMs,
  sameColour,
  screen,
  serveTestPage,
} from './given.ts';
import type { Box } from './png.ts';
import { centre } from './png.ts';

// The live screen (spec, "Embeddable screen"; "Authentication" 4): an RFB 3.8 connection to the
// sandbox's x11vnc through `connectVnc`, every client byte through the screen's filter. A view
// connection sees the screen but its pointer, keys and clipboard never reach the desktop; a
// control connection's do.

const given = givenDesktop('vnc');
const { runtime, desktop, id } = given;
let button: Box;
const clients: RfbClient[] = [];

async function connect(mode: 'view' | 'control'): Promise<RfbClient> {
  const client = RfbClient.overVnc(await desktop.connectVnc(id), mode);
  clients.push(client);
  await client.handshake();
  return client;
}

function click(client: RfbClient, at: { x: number; y: number }): number {
  return client.pointer(at.x, at.y, 0) + client.pointer(at.x, at.y, 1) + client.pointer(at.x, at.y, 0);
}

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
  await desktop.start(id, { width: 1280, height: 800 });
  await serveTestPage(given);
  button = await openTestPage(given);
}, prepareTimeoutMs);
afterAll(async () => {
  for (const client of clients) client.close();
  await given.cleanup();
});

describe('the live screen over VNC', () => {
  it('speaks RFB 3.8 and sends the screen: the button is blue in a framebuffer update', async () => {
    const view = await connect('view');
    expect(view.init).toMatchObject({ width: 1280, height: 800, bitsPerPixel: 32 });
    // A corner of the button, away from its label; and the page beside it. The page was found on
    // a screenshot; x11vnc's copy of the screen may show it a poll later (see the click below).
    await expect
      .poll(() => view.pixel(button.x0 + 2, button.y0 + 2), { timeout: 10_000 })
      .toEqual([...colours.button]);
    expect(await view.pixel(700, 600)).toEqual([255, 255, 255]);
  });

  it('drops a view connection’s pointer, keys and clipboard: the page does not change', async () => {
    const view = await connect('view');
    expect(click(view, centre(button))).toBe(0);
    expect(view.key(0xff0d, true) + view.key(0xff0d, false) + view.cutText('pasted')).toBe(0);
    // The connection still works after the dropped messages: the next update arrives. Nothing of
    // the click, keys or clipboard was written to x11vnc (0 bytes above), so no later effect of
    // theirs is left to wait for before looking at the page.
    expect(await view.pixel(700, 600)).toEqual([255, 255, 255]);
    await node(given, 'button', 'Press me');
    expect(sameColour((await screen(given)).pixel(700, 600), [255, 255, 255])).toBe(true);
  });

  it('passes a control connection’s click, while a view connection stays open beside it', async () => {
    const view = await connect('view');
    const control = await connect('control');
    expect(click(control, centre(button))).toBe(18);
    await expect
      .poll(async () => (await screen(given)).pixel(700, 600), { timeout: 10_000 })
      .toEqual([...colours.clicked]);
    await node(given, 'button', 'Clicked');
    // x11vnc answers from its own copy of the screen, which it refreshes by polling X; so the view
    // connection sees the change on x11vnc's next poll, a moment after the screenshot does.
    await expect.poll(() => view.pixel(700, 600), { timeout: 10_000 }).toEqual([...colours.clicked]);
  });
});
