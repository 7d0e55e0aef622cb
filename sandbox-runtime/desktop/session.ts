import type { ScreenSize } from '../../domain/sandboxes/screen-geometry.ts';
import { desktopDir } from './shell.ts';

// The desktop around the browser, as people and models know one: openbox frames, places and
// focuses windows (the browser maximized without a frame, as before); tint2 is a panel along the
// bottom with launchers (browser, terminal, text editor, file manager), the window list and a
// clock; the apps are Xfce's GTK 3 ones, so their trees are on the accessibility bus. Every file
// here is written by the start script into `desktopDir`, nothing into the sandbox's own /etc or
// /root: a person's settings there win.

/** The panel's height in pixels, at the bottom of the screen; openbox keeps it free (margins). */
export const panelHeight = 30;

/** The area maximized windows fill: the screen above the panel. */
export function workArea(size: ScreenSize): ScreenSize {
  return { width: size.width, height: size.height - panelHeight };
}

/** The panel's launchers, in their order from the left: name → what it starts and shows. */
export const launchers = [
  { file: 'browser', name: 'Web Browser', icon: 'chromium' },
  { file: 'terminal', name: 'Terminal', icon: 'org.xfce.terminal', exec: 'xfce4-terminal' },
  { file: 'editor', name: 'Text Editor', icon: 'org.xfce.mousepad', exec: 'mousepad' },
  { file: 'files', name: 'Files', icon: 'org.xfce.thunar', exec: 'thunar' },
] as const;

/**
 * The panel's layout (tint2's `panel_padding`, `launcher_padding`, `launcher_icon_size`, inside
 * the panel's 1-pixel border): launcher `index` is centred at x = first + index × step, in the
 * middle of the panel's height.
 */
export const launcherLayout = { border: 1, iconSize: 20, padding: 4, spacing: 4, panelPadding: 2 } as const;

export function launcherCentre(index: number, size: ScreenSize): { x: number; y: number } {
  const { border, iconSize, padding, spacing, panelPadding } = launcherLayout;
  const x = border + panelPadding + padding + index * (iconSize + spacing) + iconSize / 2;
  return { x, y: size.height - panelHeight / 2 };
}

/** A desktop entry (freedesktop.org), for a launcher. */
function desktopEntry(name: string, icon: string, exec: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${name}`,
    `Icon=${icon}`,
    `Exec=${exec}`,
    'Path=/root',
    '',
  ].join('\n');
}

/**
 * The launchers' desktop entries, file name → contents. The browser's opens a window of the
 * running browser (same profile, so Chromium hands it over), or starts it again as the desktop did.
 */
export function launcherEntries(browserArgs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    launchers.map((launcher) => {
      const exec =
        'exec' in launcher ? launcher.exec : browserArgs.filter((arg) => arg !== 'about:blank').join(' ');
      return [`${launcher.file}.desktop`, desktopEntry(launcher.name, launcher.icon, exec)];
    }),
  );
}

const focusRaise = '<action name="Focus"/><action name="Raise"/>';
const press = (button: string, actions: string) =>
  `<mousebind button="${button}" action="Press">${actions}</mousebind>`;
const drag = (button: string, actions: string) =>
  `<mousebind button="${button}" action="Drag">${actions}</mousebind>`;
const click = (button: string, actions: string) =>
  `<mousebind button="${button}" action="Click">${actions}</mousebind>`;
const resize = (edge: string) => `<action name="Resize"><edge>${edge}</edge></action>`;
const keybind = (key: string, actions: string) => `<keybind key="${key}">${actions}</keybind>`;
const execute = (command: string) => `<action name="Execute"><command>${command}</command></action>`;

/**
 * Openbox's settings. The browser's windows fill the work area without a frame or border (its
 * own tab strip is its title bar), so the page starts where it always did; other windows get a
 * frame with the usual buttons, centred on the screen. The bottom margin keeps the panel's strip free from the
 * first moment, so the browser's window has its final size before the panel has even started.
 * Mouse: a press focuses and raises, the title bar moves and double-click maximizes, edges and
 * corners resize, Alt+drag moves. Keys: Alt+Tab, Alt+F4, Ctrl+Alt+T a terminal, Super+E files.
 */
export const openboxConfig = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <theme>
    <name>Clearlooks</name><titleLayout>NLIMC</titleLayout><keepBorder>no</keepBorder>
    <font place="ActiveWindow"><name>DejaVu Sans</name><size>9</size><weight>bold</weight></font>
    <font place="InactiveWindow"><name>DejaVu Sans</name><size>9</size><weight>bold</weight></font>
  </theme>
  <desktops><number>1</number></desktops>
  <margins><top>0</top><bottom>${panelHeight}</bottom><left>0</left><right>0</right></margins>
  <keyboard>
    ${keybind('A-Tab', '<action name="NextWindow"/>')}
    ${keybind('A-S-Tab', '<action name="PreviousWindow"/>')}
    ${keybind('A-F4', '<action name="Close"/>')}
    ${keybind('C-A-t', execute('xfce4-terminal'))}
    ${keybind('W-e', execute('thunar'))}
  </keyboard>
  <mouse>
    <dragThreshold>1</dragThreshold><doubleClickTime>500</doubleClickTime>
    <context name="Frame">${press('A-Left', focusRaise)}${drag('A-Left', '<action name="Move"/>')}${drag('A-Right', '<action name="Resize"/>')}</context>
    <context name="Titlebar">${drag('Left', '<action name="Move"/>')}<mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind></context>
    <context name="Titlebar Top Right Bottom Left TLCorner TRCorner BRCorner BLCorner">${press('Left', `${focusRaise}<action name="Unshade"/>`)}${press('Right', `${focusRaise}<action name="ShowMenu"><menu>client-menu</menu></action>`)}</context>
    <context name="Top">${drag('Left', resize('top'))}</context>
    <context name="Bottom">${drag('Left', resize('bottom'))}</context>
    <context name="Left">${drag('Left', resize('left'))}</context>
    <context name="Right">${drag('Left', resize('right'))}</context>
    <context name="TLCorner TRCorner BRCorner BLCorner">${drag('Left', '<action name="Resize"/>')}</context>
    <context name="Client">${press('Left', focusRaise)}${press('Middle', focusRaise)}${press('Right', focusRaise)}</context>
    <context name="Icon">${press('Left', `${focusRaise}<action name="ShowMenu"><menu>client-menu</menu></action>`)}</context>
    <context name="Close">${press('Left', focusRaise)}${click('Left', '<action name="Close"/>')}</context>
    <context name="Maximize">${press('Left', focusRaise)}${click('Left', '<action name="ToggleMaximize"/>')}</context>
    <context name="Iconify">${press('Left', focusRaise)}${click('Left', '<action name="Iconify"/>')}</context>
  </mouse>
  <applications>
    <application class="*" type="normal"><position force="no"><x>center</x><y>center</y></position></application>
    <application class="Chromium" type="normal"><decor>no</decor><maximized>yes</maximized></application>
  </applications>
</openbox_config>`;

/**
 * tint2's settings: one panel along the bottom, launchers (L), the window list (T) and a clock
 * (C). A click on a window's button shows or minimizes it; no other button closes anything.
 */
export function tint2Config(): string {
  const { border, iconSize, padding, spacing, panelPadding } = launcherLayout;
  const background = (colour: string, edge: string, rounded: number) =>
    [
      `rounded = ${rounded}`,
      `border_width = ${border}`,
      'border_sides = TBLR',
      `background_color = ${colour}`,
      `border_color = ${edge}`,
      `background_color_hover = ${colour}`,
      `border_color_hover = #eaeaea 44`,
      `background_color_pressed = ${colour}`,
      `border_color_pressed = #eaeaea 44`,
    ].join('\n');
  return [
    '# 1: the panel; 2: a window; 3: the active window; 4: a tooltip',
    background('#2b2b2b 100', '#2b2b2b 100', 0),
    background('#777777 20', '#777777 30', 3),
    background('#5f87af 80', '#ffffff 40', 3),
    background('#222222 100', '#333333 100', 1),
    'panel_items = LTC',
    `panel_size = 100% ${panelHeight}`,
    'panel_margin = 0 0',
    `panel_padding = ${panelPadding} 0 ${panelPadding}`,
    'panel_background_id = 1',
    'panel_position = bottom center horizontal',
    'panel_layer = top',
    'panel_monitor = all',
    'strut_policy = follow_size',
    'panel_window_name = tint2',
    'disable_transparency = 1',
    'mouse_effects = 1',
    'font_shadow = 0',
    'taskbar_mode = single_desktop',
    'taskbar_name = 0',
    'taskbar_padding = 2 0 2',
    'taskbar_background_id = 0',
    'task_align = left',
    'task_text = 1',
    'task_icon = 1',
    'task_centered = 0',
    'task_maximum_size = 200 30',
    'task_padding = 4 2 4',
    'task_tooltip = 1',
    'task_font = DejaVu Sans 9',
    'task_font_color = #ffffff 100',
    'task_background_id = 2',
    'task_active_background_id = 3',
    'task_iconified_background_id = 2',
    'mouse_left = toggle_iconify',
    'mouse_middle = none',
    'mouse_right = none',
    'mouse_scroll_up = none',
    'mouse_scroll_down = none',
    `launcher_padding = ${padding} ${(panelHeight - 2 * border - iconSize) / 2} ${spacing}`,
    'launcher_background_id = 0',
    'launcher_icon_background_id = 0',
    `launcher_icon_size = ${iconSize}`,
    'launcher_tooltip = 1',
    'startup_notifications = 0',
    ...launchers.map((launcher) => `launcher_item_app = ${desktopDir}/applications/${launcher.file}.desktop`),
    'time1_format = %H:%M',
    'time1_font = DejaVu Sans Bold 9',
    'clock_font_color = #ffffff 100',
    'clock_padding = 6 0',
    'clock_background_id = 0',
    'clock_lclick_command =',
    'clock_rclick_command =',
    'tooltip_show_timeout = 0.5',
    'tooltip_hide_timeout = 0.1',
    'tooltip_padding = 4 4',
    'tooltip_background_id = 4',
    'tooltip_font_color = #dddddd 100',
    'tooltip_font = DejaVu Sans 9',
    '',
  ].join('\n');
}

/**
 * Defaults for the Xfce apps' settings (xfconf reads them from `$XDG_CONFIG_DIRS`, below a
 * person's own): the file manager lists folders as rows, whose cells are in the accessibility
 * tree (its icon view exposes no items).
 */
export const xfconfDefaults: Record<string, string> = {
  'thunar.xml': `<?xml version="1.0" encoding="UTF-8"?>
<channel name="thunar" version="1.0">
  <property name="last-view" type="string" value="ThunarDetailsView"/>
  <property name="misc-show-about-templates" type="bool" value="false"/>
</channel>`,
};
