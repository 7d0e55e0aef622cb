import { describe, expect, it } from 'vitest';
import { chromiumArgs } from '../../../sandbox-runtime/desktop/processes.ts';
import {
  launcherCentre,
  launcherEntries,
  launchers,
  openboxConfig,
  panelHeight,
  tint2Config,
  workArea,
} from '../../../sandbox-runtime/desktop/session.ts';

// The desktop around the browser as its settings say it: openbox keeps the panel's strip free
// and maximizes only the browser, tint2 lists the launchers in their order, and each launcher
// starts its app.

const screen = { width: 1280, height: 800 };

describe('the desktop session', () => {
  it('keeps the panel’s strip at the bottom free and the browser maximized above it', () => {
    expect(workArea(screen)).toEqual({ width: 1280, height: 800 - panelHeight });
    expect(openboxConfig).toContain(`<bottom>${panelHeight}</bottom>`);
    expect(openboxConfig).toMatch(
      /<application class="Chromium" type="normal"><decor>no<\/decor><maximized>yes/,
    );
    expect(openboxConfig).toContain('<keybind key="C-A-t"><action name="Execute"><command>xfce4-terminal');
  });

  it('puts the launchers on the panel in order, each starting its app from /root', () => {
    const config = tint2Config();
    expect(config).toContain(`panel_size = 100% ${panelHeight}`);
    expect(config).toContain('panel_position = bottom center horizontal');
    const items = config.split('\n').filter((line) => line.startsWith('launcher_item_app = '));
    expect(items).toEqual(
      launchers.map(
        (launcher) => `launcher_item_app = /run/orrery-desktop/applications/${launcher.file}.desktop`,
      ),
    );
    const entries = launcherEntries(chromiumArgs(screen));
    expect(entries['terminal.desktop']).toContain('Exec=xfce4-terminal\n');
    expect(entries['editor.desktop']).toContain('Exec=mousepad\n');
    expect(entries['files.desktop']).toContain('Exec=thunar\n');
    expect(entries['browser.desktop']).toContain('--user-data-dir=/run/orrery-desktop/chromium');
    expect(entries['browser.desktop']).not.toContain('about:blank');
    for (const entry of Object.values(entries)) expect(entry).toContain('Path=/root\n');
  });

  it('centres the launchers one icon and its spacing apart, in the middle of the panel', () => {
    expect(launcherCentre(0, screen)).toEqual({ x: 17, y: 800 - panelHeight / 2 });
    expect(launcherCentre(1, screen).x - launcherCentre(0, screen).x).toBe(24);
  });
});
