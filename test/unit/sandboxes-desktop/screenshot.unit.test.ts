import { describe, expect, it } from 'vitest';
import { chromiumArgs, x11vncArgs, xvfbArgs } from '../../../sandbox-runtime/desktop/processes.ts';
import { importArgs, pngSize } from '../../../sandbox-runtime/desktop/screenshot.ts';
import { panelHeight } from '../../../sandbox-runtime/desktop/session.ts';

// What the desktop runs: the screenshot's ImageMagick arguments (a region cropped, then scaled
// to `regionOutputSize` exactly), and the flags the brief and the machines ask of each process.

const screen = { width: 1280, height: 800 };

describe('screenshots', () => {
  it('take the root window as 8-bit RGB PNG', () => {
    expect(importArgs(screen, undefined, '/run/s.png')).toEqual([
      ...['import', '-silent', '-window', 'root'],
      ...['-define', 'png:compression-level=1', 'PNG24:/run/s.png'],
    ]);
  });

  it('crop a region and scale it to fit the screen with its aspect ratio kept', () => {
    const args = importArgs(screen, [100, 50, 200, 150], '/run/s.png');
    expect(args).toContain('100x100+100+50');
    expect(args).toContain('800x800!');
    expect(importArgs(screen, [0, 0, 640, 100], 'f')).toContain('1280x200!');
  });

  it('read the size from the PNG header', () => {
    const header = Buffer.alloc(24);
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]).copy(header);
    header.write('IHDR', 12, 'latin1');
    header.writeUInt32BE(1920, 16);
    header.writeUInt32BE(1080, 20);
    expect(pngSize(header)).toEqual({ width: 1920, height: 1080 });
    expect(() => pngSize(Buffer.from('not a png at all, no header'))).toThrow('not a PNG');
  });
});

describe('the desktop processes', () => {
  it('run Chromium as root without its sandbox, quiet on a machine without internet', () => {
    const args = chromiumArgs({ width: 1024, height: 768 });
    for (const flag of [
      '--no-sandbox',
      '--remote-debugging-port=9222',
      '--remote-debugging-address=127.0.0.1',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      // The screen above the panel (session.ts).
      `--window-size=1024,${768 - panelHeight}`,
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.some((arg) => arg.startsWith('--user-data-dir=/'))).toBe(true);
  });

  it('run Xvfb at the resolution and x11vnc on the loopback without a password', () => {
    expect(xvfbArgs({ width: 800, height: 600 })).toContain('800x600x24');
    expect(x11vncArgs()).toEqual(
      expect.arrayContaining(['-rfbport', '5900', '-localhost', '-forever', '-shared', '-nopw']),
    );
  });
});
