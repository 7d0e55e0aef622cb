import { z } from 'zod';
import type { ScreenSize } from '../../domain/sandboxes/screen-geometry.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { launcherEntries, openboxConfig, tint2Config, workArea, xfconfDefaults } from './session.ts';
import { desktopDir, display, quote, runShell, runShellOk, ShellFailed, shellWords } from './shell.ts';

// The desktop's processes inside a sandbox (spec, "Desktop transitions"): Xvfb at the asked
// resolution, openbox, x11vnc on the sandbox's loopback and Chromium with its DevTools port; and
// around them (session.ts) the session bus, the accessibility bus and the tint2 panel. They are
// started by one exec and live on after it in the background (the runtime's exec does not wait
// for them); each runs in its own session, with its output in a log under `desktopDir`. The
// apps the panel starts (terminal, editor, file manager) are the panel's children.
//
// Every desktop process, and all they start (Chromium's helpers daemonize, the buses' services
// are activated), carries the variable ORRERY_DESKTOP, so stop finds them all in /proc whatever
// their parent became. What the desktop is (size, ports, browser) is kept in the sandbox,
// `state.json` beside a list of its four processes (display, window manager, VNC, browser), so a
// restarted API finds it; it counts as running only while those four live (a restarted or
// forked sandbox keeps the files, not the processes). The panel and the buses are not waited
// for: the browser is ready before the panel shows (a moment later), and a panel that died
// leaves a desktop that still works.

/** Fixed ports: each sandbox has its own network namespace, so they never collide. */
export const desktopPorts = { vnc: 5900, devtools: 9222 } as const;

export const desktopState = z.object({
  display: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  vncPort: z.number().int(),
  devtoolsPort: z.number().int(),
  /** The browser's DevTools WebSocket path, `/devtools/browser/<id>` (the file is the sandbox's: checked). */
  devtoolsPath: z.string().regex(/^\/devtools\/browser\/[A-Za-z0-9-]{1,64}$/),
  browser: z.string(),
  startedAt: z.string(),
});
export type DesktopState = z.infer<typeof desktopState>;

/** Chromium as root needs `--no-sandbox`; the machines have no internet, so no background fetches. */
export function chromiumArgs(size: ScreenSize): string[] {
  return [
    'chromium',
    '--no-sandbox',
    `--remote-debugging-port=${desktopPorts.devtools}`,
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${desktopDir}/chromium`,
    ...['--no-first-run', '--disable-background-networking', '--disable-component-update'],
    ...['--disable-sync', '--disable-gpu', '--disable-dev-shm-usage', '--password-store=basic'],
    // Hides the "unsupported command-line flag" bar --no-sandbox would show above every page, and
    // the "restore pages?" bubble after a desktop was killed rather than stopped.
    '--test-type',
    '--hide-crash-restore-bubble',
    // The address bar's suggestions in Chromium's own views rather than web pages: those are
    // rendered at start, in a renderer of their own, at a cost the sandbox's cores feel.
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
    '--window-position=0,0',
    `--window-size=${workArea(size).width},${workArea(size).height}`,
    'about:blank',
  ];
}

export function x11vncArgs(): string[] {
  return [
    ...['x11vnc', '-display', display, '-rfbport', String(desktopPorts.vnc), '-localhost'],
    ...['-forever', '-shared', '-nopw', '-quiet'],
  ];
}

export function xvfbArgs(size: ScreenSize): string[] {
  return ['Xvfb', display, '-screen', '0', `${size.width}x${size.height}x24`, '-nolisten', 'tcp', '-noreset'];
}

const displayNumber = display.slice(1);

/**
 * Kills every process marked ORRERY_DESKTOP (TERM, then KILL after 3 s) and forgets the desktop.
 * The browser's main process writes its title over its environment and its arguments (one
 * string then), so it is known by its profile's flag in them instead (spelled through a variable,
 * so this script's own command line does not match); one that stopped itself on the way out
 * (seen when its crash handler ended first) is continued, so the TERM reaches it.
 */
const stopScript = `
d=${desktopDir}
profile="--user-data-dir=$d/chromium"
marked() {
  for p in /proc/[0-9]*; do
    { grep -qz '^ORRERY_DESKTOP=' "$p/environ" || grep -qzF -- "$profile" "$p/cmdline"; } 2>/dev/null && echo "\${p#/proc/}"
  done
}
pids=$(marked)
if [ -n "$pids" ]; then
  kill -TERM $pids 2>/dev/null; kill -CONT $pids 2>/dev/null
  # dbus-launch's babysitter ignores TERM (it waits for the display to go, which it misses).
  for p in $pids; do [ "$(cat /proc/$p/comm 2>/dev/null)" = dbus-launch ] && kill -KILL $p 2>/dev/null; done
  # A service the buses start meanwhile is marked too, and gets its TERM on the next turn.
  for i in $(seq 30); do pids=$(marked); [ -z "$pids" ] && break; kill -TERM $pids 2>/dev/null; sleep 0.1; done
  pids=$(marked); [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  # Gone, not only killed: a dying browser still holds its DevTools port.
  for i in $(seq 30); do [ -z "$(marked)" ] && break; sleep 0.1; done
fi
rm -f "$d/state.json" "$d/pids" "$d/keymap-bound" /tmp/.X${displayNumber}-lock /tmp/.X11-unix/X${displayNumber} "$d"/chromium/Singleton*
true`;

/** A file written by the start script, in `desktopDir`. */
function writeFile(path: string, contents: string): string {
  return `cat > ${quote(path)} <<'ORRERY_EOF'\n${contents}\nORRERY_EOF`;
}

/**
 * Starts the processes and waits for the four the spec needs to be usable: the display answers,
 * x11vnc listens, the browser's DevTools listen and its window is shown. Prints the DevTools path.
 * The session bus (`dbus-launch`, registered on the display so any app started with DISPLAY=:1
 * finds it) starts first; the accessibility bus and the panel once the browser shows, not waited for.
 */
function startScript(size: ScreenSize, seconds: number, marker: string): string {
  const files = [
    writeFile('openbox.xml', openboxConfig),
    writeFile('tint2rc', tint2Config()),
    'mkdir -p applications xdg/xfce4/xfconf/xfce-perchannel-xml',
    ...Object.entries(launcherEntries(chromiumArgs(size))).map(([name, entry]) =>
      writeFile(`applications/${name}`, entry),
    ),
    ...Object.entries(xfconfDefaults).map(([name, xml]) =>
      writeFile(`xdg/xfce4/xfconf/xfce-perchannel-xml/${name}`, xml),
    ),
  ];
  const steps = [
    `start Xvfb ${shellWords(xvfbArgs(size))}`,
    ...files,
    'until xdotool getdisplaygeometry >/dev/null 2>&1; do waiting "the X display"; done',
    // Apps started from the panel or by exec with DISPLAY=:1 find this bus through the display.
    `dbus-uuidgen --ensure 2>/dev/null; eval "$(dbus-launch --autolaunch="$(dbus-uuidgen --get)" --sh-syntax --close-stderr 2>/dev/null)" || true`,
    `start openbox openbox --config-file ${desktopDir}/openbox.xml`,
    `start x11vnc ${shellWords(x11vncArgs())}`,
    `start chromium ${shellWords(chromiumArgs(size))}`,
    `until grep -q '^PORT=${desktopPorts.vnc}' x11vnc.log; do waiting x11vnc; done`,
    "until grep -q '^DevTools listening on ws://' chromium.log; do waiting 'the browser'; done",
    'until xdotool search --onlyvisible --class chromium >/dev/null 2>&1; do waiting "the browser window"; done',
    // Once the browser shows: started beside it on one core, they held its window back ~0.4 s.
    'beside at-spi /usr/libexec/at-spi-bus-launcher --launch-immediately',
    `beside tint2 tint2 -c ${desktopDir}/tint2rc`,
    'mv pids.new pids',
    "grep -m1 '^DevTools listening on ws://' chromium.log | sed 's|^DevTools listening on ws://[^/]*||'",
  ];
  return `
set -u
d=${desktopDir}; end=$(( $(date +%s) + ${seconds} ))
mkdir -p "$d" /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix && cd "$d" && : > pids.new || exit 1
started=''
export ORRERY_DESKTOP=${marker} XDG_CONFIG_DIRS="$d/xdg:/etc/xdg"
# Started from /root, so a terminal opened from the panel or by a key starts there.
start() { name=$1; shift; (cd /root && exec setsid "$@" </dev/null >"$d/$name.log" 2>&1) & echo "$name $!" >> pids.new; started="$started $name:$!"; }
beside() { name=$1; shift; (cd /root && exec setsid "$@" </dev/null >"$d/$name.log" 2>&1) & }
# The waits poll every 50 ms with the shell's builtins and one command, so on a sandbox's single
# core they take little from the programs they wait for.
# Alive and not a zombie: right after start the process may still be \`setsid\` before its exec,
# so its name is no test yet. The state follows the name's closing parenthesis.
alive() { { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1; state=\${stat##*") "}; [ "\${state%% *}" != Z ]; }
polls=0
waiting() {
  for proc in $started; do
    alive "\${proc#*:}" || { echo "\${proc%%:*} exited:" >&2; tail -n 20 "\${proc%%:*}.log" >&2; exit 1; }
  done
  polls=$((polls + 1))
  [ $((polls % 20)) -ne 0 ] || [ "$(date +%s)" -lt "$end" ] || { echo "timed out waiting for $1" >&2; exit 1; }
  sleep 0.05
}
${steps.join('\n')}`;
}

/** Whether the four processes of `pids` live; prints the state then. */
const statusScript = `
d=${desktopDir}
[ -f "$d/state.json" ] && [ -f "$d/pids" ] || exit 0
while read -r name pid; do [ "$(cat /proc/$pid/comm 2>/dev/null)" = "$name" ] || exit 0; done < "$d/pids"
cat "$d/state.json"`;

export async function stopProcesses(runtime: SandboxRuntime, sandboxId: string): Promise<void> {
  await runShellOk(runtime, sandboxId, stopScript, 30);
}

/** Starts the processes (after clearing any left over) and answers the DevTools path. */
export async function startProcesses(
  runtime: SandboxRuntime,
  sandboxId: string,
  size: ScreenSize,
  seconds: number,
): Promise<string> {
  await stopProcesses(runtime, sandboxId);
  const marker = `${Date.now().toString(36)}`;
  try {
    const path = (
      await runShellOk(runtime, sandboxId, startScript(size, seconds, marker), seconds + 10)
    ).trim();
    if (!desktopState.shape.devtoolsPath.safeParse(path).success) {
      throw new Error(`the browser said no DevTools path (${path})`);
    }
    return path;
  } catch (error) {
    await stopProcesses(runtime, sandboxId).catch(() => {});
    if (error instanceof ShellFailed) throw new Error(`the desktop did not start: ${error.message}`);
    throw error;
  }
}

export async function saveState(runtime: SandboxRuntime, sandboxId: string, state: DesktopState) {
  await runtime.writeFile(sandboxId, `${desktopDir}/state.json`, JSON.stringify(state));
}

/** The desktop's state while its processes live; `undefined` when it does not run. */
export async function readState(
  runtime: SandboxRuntime,
  sandboxId: string,
): Promise<DesktopState | undefined> {
  const { exitCode, stdout } = await runShell(runtime, sandboxId, statusScript, 30);
  if (exitCode !== 0 || stdout.trim() === '') return undefined;
  try {
    return desktopState.parse(JSON.parse(stdout));
  } catch {
    return undefined; // a state file that is not ours (or half written) is no desktop
  }
}
