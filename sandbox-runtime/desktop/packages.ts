import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostEnv, hostProgram, runHost } from '../host.ts';

// The desktop's programs in the sandboxes' base filesystem (spec, "Desktop transitions": a
// screen, a pointer and keyboard, a browser; "Embeddable screen": VNC). Installed by apt inside
// the freshly debootstrapped base (rootfs.ts), not by debootstrap's `--include`: debootstrap
// cannot choose between virtual packages (Chromium's GTK needs `dbus-session-bus`) and reads one
// suite only, while apt resolves them and takes Chromium's fixes from bookworm-security.

/** Package → why it is here. `--no-install-recommends`, so only what is listed and its needs. */
const desktopPackageTable = {
  xvfb: 'the screen: an X server drawing into memory',
  openbox: 'the window manager: windows placed, framed, focused; the browser maximized',
  tint2: 'the panel: launchers, the window list, a clock',
  x11vnc: 'the live screen: an RFB 3.8 server over the X display',
  xdotool: "pointer and keyboard (spec's Input actions)",
  imagemagick: 'screenshots: `import -window root`, crop and scale to PNG',
  chromium: 'the browser, driven over its DevTools protocol',
  'xfce4-terminal': 'a terminal (GTK 3, so its text is in the accessibility tree)',
  mousepad: 'a text editor (GTK 3)',
  thunar: 'a file manager (GTK 3)',
  'fonts-dejavu-core': 'a font, so pages and apps render text',
  'librsvg2-common': "SVG icons for the apps and the panel (GTK's symbolic icons are SVG)",
  'dbus-x11': 'the session bus (`dbus-launch`), found through the display by every app',
  'at-spi2-core': "the accessibility bus the apps' trees are read over",
  'gir1.2-atspi-2.0': 'reading those trees from Python (atspi.py)',
  'python3-gi': 'the bindings atspi.py reads them with',
  python3: 'a language to serve and script pages inside the sandbox',
} as const;

export const desktopPackages = Object.keys(desktopPackageTable).sort();

/**
 * Brings the system's font caches up to date. A package that adds fonts after apt's last
 * fontconfig trigger (fonts-urw-base35, through ImageMagick) leaves its folder's cache stale, and
 * then the first program in each new sandbox to use fonts (the window manager, the browser, the
 * panel, all at once as the desktop starts) scans that folder again.
 */
export const refreshFontCaches = 'if command -v fc-cache >/dev/null; then fc-cache -s; fi';

/**
 * Installs `packages` into the Debian tree at `root` with its own apt, chrooted, in a private
 * mount namespace (its /proc is mounted there only; nothing stays mounted on the host). Daemons
 * are kept from starting (policy-rc.d); apt's downloads are removed by rootfs.ts afterwards.
 */
export async function installPackages(
  root: string,
  packages: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  const security = debianSecuritySource();
  if (security !== undefined) {
    writeFileSync(
      join(root, 'etc/apt/sources.list.d/security.list'),
      `deb ${security} bookworm-security main\n`,
    );
  }
  writeFileSync(join(root, 'etc/resolv.conf'), readFileSync('/etc/resolv.conf'));
  const policy = join(root, 'usr/sbin/policy-rc.d');
  writeFileSync(policy, '#!/bin/sh\nexit 101\n');
  chmodSync(policy, 0o755);
  const apt = `apt-get update -q && apt-get install -y -q --no-install-recommends ${packages.join(' ')} && apt-get clean && ${refreshFontCaches}`;
  const script =
    'mount -t proc proc "$1/proc" && exec chroot "$1" /usr/bin/env -i "$2" "$3" "$4" /bin/sh -c "$5"';
  const args = [
    ...['--mount', '--fork', '/bin/sh', '-c', script, 'orrery-apt', root],
    ...[`PATH=${hostEnv.PATH}`, 'LANG=C.UTF-8', 'DEBIAN_FRONTEND=noninteractive', apt],
  ];
  log(`installing the desktop's packages into the base: ${packages.join(' ')}`);
  try {
    await runHost(hostProgram('unshare'), args, log);
  } finally {
    rmSync(policy, { force: true });
  }
}

/** The security mirror this host's apt uses, if it uses one (so a local mirror is honoured). */
function debianSecuritySource(): string | undefined {
  const sources = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const file of sources.filter(existsSync)) {
    const uri = /(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+\/debian-security)\/?(?:\s|$)/m.exec(
      readFileSync(file, 'utf8'),
    );
    if (uri?.[1] !== undefined) return uri[1];
  }
  return undefined;
}
