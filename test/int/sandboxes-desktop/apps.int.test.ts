import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessibilityNode } from '../../../domain/sandboxes/accessibility.ts';
import { launcherCentre, panelHeight } from '../../../sandbox-runtime/desktop/session.ts';
import { eventually } from '../../harness/platform.ts';
import { sandboxId } from '../sandboxes-runtime/given.ts';
import { findNode, givenDesktop, prepareTimeoutMs, refusal, sameColour, screen } from './given.ts';

// The desktop beside the browser (sandbox-runtime/desktop/session.ts): a panel along the bottom
// whose launchers start a terminal, a text editor and a file manager, driven with the spec's
// input actions as a person would (a click on the launcher, keys, typed text), and read and
// acted on through the accessibility tree's `app` (AT-SPI), like the browser's tabs.

const given = givenDesktop('apps');
const { runtime, desktop, id } = given;
const size = { width: 1280, height: 800 };

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
  await desktop.start(id, size);
}, prepareTimeoutMs);
afterAll(given.cleanup);

/** Runs `command` inside the sandbox on the desktop's display; its standard output. */
async function onDisplay(command: string): Promise<string> {
  return (await runtime.exec(id, command, { env: { DISPLAY: ':1' } })).result.stdout;
}

const windows = async (windowClass: string) =>
  (await onDisplay(`xdotool search --onlyvisible --class ${windowClass} 2>/dev/null`))
    .split('\n')
    .filter(Boolean);

const processes = async () => onDisplay('ps -e -o comm=');

/** Clicks the panel's launcher `index` (0 browser, 1 terminal, 2 editor, 3 files) and waits for its window. */
async function launch(index: number, windowClass: string): Promise<void> {
  const before = (await windows(windowClass)).length;
  const at = launcherCentre(index, size);
  await desktop.input(id, { action: 'click', ...at, button: 'left', count: 1 });
  await eventually(
    async () => ((await windows(windowClass)).length > before ? true : undefined),
    20_000,
    `a ${windowClass} window`,
  );
}

const tree = (app: string) => desktop.accessibilityTree(id, { app, depth: 200, includeHidden: false });

function find(root: AccessibilityNode, role: string, name?: string): AccessibilityNode {
  const found = findNode(root, (node) => node.role === role && (name === undefined || node.name === name));
  expect(found, `a ${role}${name === undefined ? '' : ` named ${name}`}`).toBeDefined();
  return found as AccessibilityNode;
}

describe('the desktop beside the browser', () => {
  it('runs a panel along the bottom, below the browser’s window', async () => {
    await eventually(
      async () => ((await windows('tint2')).length > 0 ? true : undefined),
      10_000,
      'the panel',
    );
    expect(await processes()).toMatch(/^tint2$/m);
    expect(await processes()).toMatch(/^at-spi-bus-laun/m);
    // The browser fills the screen above the panel; the panel's strip is the panel's colour.
    const geometry = await onDisplay(
      'xdotool search --onlyvisible --class chromium getwindowgeometry --shell | grep -E "^(X|Y|WIDTH|HEIGHT)="',
    );
    expect(geometry).toBe(`X=0\nY=0\nWIDTH=${size.width}\nHEIGHT=${size.height - panelHeight}\n`);
    const shot = await screen(given);
    expect(sameColour(shot.pixel(700, size.height - panelHeight - 10), [255, 255, 255])).toBe(true);
    const panel = [43, 43, 43] as const;
    await eventually(async () =>
      sameColour((await screen(given)).pixel(700, size.height - panelHeight / 2), panel) ? true : undefined,
    );
  });

  it('starts a terminal from the panel; a command typed into it runs in the sandbox', async () => {
    await launch(1, 'xfce4-terminal');
    expect(await processes()).toMatch(/^xfce4-terminal$/m);
    // The new window has the keyboard: typing goes to the shell, which starts in /root.
    await eventually(
      async () => {
        const answer = await tree('terminal').catch(() => undefined);
        const focused =
          answer &&
          findNode(answer, (node) => node.role === 'terminal' && !!node.states?.includes('focused'));
        return focused ? true : undefined;
      },
      20_000,
      'the terminal focused',
    );
    await desktop.input(id, { action: 'type', text: 'echo typed in the terminal > typed.txt && pwd\n' });
    const file = await eventually(async () => {
      const { result } = await runtime.exec(id, 'cat /root/typed.txt');
      return result.exit_code === 0 ? result.stdout : undefined;
    });
    expect(file).toBe('typed in the terminal\n');
    // Its accessibility tree: the app, its window, the terminal whose text shows the command.
    const terminal = await tree('terminal');
    expect(terminal).toMatchObject({ role: 'application', name: 'xfce4-terminal' });
    expect(terminal.ref).toMatch(/^e\d{15}$/);
    const text = find(terminal, 'terminal', 'Terminal');
    await eventually(async () => {
      const read = await desktop.accessibilityAct(id, { ref: text.ref, action: 'read' });
      return read.value?.includes('/root') ? read : undefined;
    });
    expect(find(terminal, 'menuitem', 'File').actions).toContain('press');
  });

  it('opens another terminal window on Ctrl+Alt+T', async () => {
    const before = (await windows('xfce4-terminal')).length;
    await desktop.input(id, { action: 'key', keys: ['ctrl+alt+t'], repeat: 1 });
    await eventually(async () => ((await windows('xfce4-terminal')).length > before ? true : undefined));
  });

  it('starts the text editor from the panel; its text is set and read through the tree', async () => {
    await launch(2, 'mousepad');
    expect(await processes()).toMatch(/^mousepad$/m);
    const editor = await eventually(async () => tree('editor').catch(() => undefined), 15_000, 'the editor');
    expect(editor).toMatchObject({ role: 'application', name: 'mousepad' });
    find(editor, 'menuitem', 'File');
    const text = find(editor, 'textbox');
    expect(text.actions).toEqual(expect.arrayContaining(['focus', 'set-text']));
    const set = await desktop.accessibilityAct(id, {
      ref: text.ref,
      action: 'set-text',
      text: 'set through AT-SPI',
    });
    expect(set).toEqual({ ref: text.ref, action: 'set-text', ok: true });
    expect(await desktop.accessibilityAct(id, { ref: text.ref, action: 'read' })).toMatchObject({
      value: 'set through AT-SPI',
    });
    expect(find(await tree('mousepad'), 'textbox').value).toBe('set through AT-SPI');
  });

  it('starts the file manager from the panel; its rows name the files, its buttons press', async () => {
    await launch(3, 'thunar');
    expect(await processes()).toMatch(/^thunar$/m);
    const files = await eventually(async () => {
      const answer = await tree('files').catch(() => undefined);
      if (answer === undefined) return undefined;
      return findNode(answer, (node) => node.name === 'typed.txt') ? answer : undefined;
    });
    expect(find(files, 'window').name).toBe('root - Thunar');
    const up = find(files, 'button', 'Open Parent');
    expect(await desktop.accessibilityAct(id, { ref: up.ref, action: 'press' })).toMatchObject({ ok: true });
    await eventually(async () => {
      const window = findNode(await tree('thunar'), (node) => node.role === 'window');
      return window?.name === 'File System - Thunar' ? true : undefined;
    });
  });

  it('answers the browser without `app`, and names the running apps when `app` names none', async () => {
    const browser = await desktop.accessibilityTree(id, { depth: 2, includeHidden: false });
    expect(browser.role).toBe('document');
    expect(browser.ref).not.toMatch(/^e\d{15}$/);
    const unknown = await refusal(tree('spreadsheet'));
    expect(unknown.code).toBe('desktop_refused');
    expect(unknown.message).toContain('xfce4-terminal (app=terminal)');
    expect(unknown.message).toContain('mousepad (app=editor)');
    expect(unknown.message).toContain('thunar (app=files)');
    const gone = await refusal(desktop.accessibilityAct(id, { ref: 'e100099990000001', action: 'press' }));
    expect(gone.message).toMatch(/read the accessibility tree again/);
  });

  it('stops with everything it started, the apps too', async () => {
    await desktop.stop(id);
    expect(await processes()).not.toMatch(/tint2|xfce4-terminal|mousepad|thunar|at-spi|dbus|Xvfb|chromium/);
  });
});

describe("the base filesystem's fonts", () => {
  it('have current caches, so no program of a new sandbox scans a font folder as the desktop starts', async () => {
    const fresh = sandboxId('fonts');
    await runtime.create(fresh);
    // fontconfig writes a folder's cache where the one it finds is stale: the first program to
    // use fonts does, while it starts.
    const { result } = await runtime.exec(
      fresh,
      'touch /tmp/mark && fc-list >/dev/null && find /var/cache/fontconfig /root/.cache/fontconfig -type f -newer /tmp/mark 2>/dev/null; fc-list | wc -l',
    );
    const [count, ...written] = result.stdout.trim().split('\n').reverse();
    expect(Number(count)).toBeGreaterThan(0); // fonts are there to find
    expect(written).toEqual([]);
  });
});
