import { z } from 'zod';
import type { ScreenSize } from '../../domain/sandboxes/screen-geometry.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { desktopDir, display, runShell, runShellOk, ShellFailed, shellWords } from './shell.ts';

// The desktop's processes inside a sandbox (spec, "Desktop transitions"): Xvfb at the asked
// resolution, openbox, x11vnc on the sandbox's loopback and Chromium with its DevTools port.
// They are started by one exec and live on after it in the background (the runtime's exec does
// not wait for them); each runs in its own session, with its output in a log under `desktopDir`.
//
// Every desktop process, and all they start (Chromium's helpers daemonize), carries the
// variable ORRERY_DESKTOP, so stop finds them all in /proc whatever their parent became. What
// the desktop is (size, ports, browser) is kept in the sandbox, `state.json` beside a list of
// its four processes, so a restarted API finds it; it counts as running only while those four
// live (a restarted or forked sandbox keeps the files, not the processes).

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
    '--window-position=0,0',
    `--window-size=${size.width},${size.height}`,
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
 * Openbox's settings: normal windows fill the screen without a frame or border (the browser's
 * own tab strip is its title bar), so the screen is the browser window, pixel for pixel.
 */
export const openboxConfig = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <theme><keepBorder>no</keepBorder></theme>
  <desktops><number>1</number></desktops>
  <applications>
    <application class="*" type="normal"><decor>no</decor><maximized>yes</maximized></application>
  </applications>
</openbox_config>`;

/** Kills every process marked ORRERY_DESKTOP (TERM, then KILL after 3 s) and forgets the desktop. */
const stopScript = `
d=${desktopDir}
marked() { for p in /proc/[0-9]*; do grep -qz '^ORRERY_DESKTOP=' "$p/environ" 2>/dev/null && echo "\${p#/proc/}"; done; }
pids=$(marked)
if [ -n "$pids" ]; then
  kill -TERM $pids 2>/dev/null
  for i in $(seq 30); do [ -z "$(marked)" ] && break; sleep 0.1; done
  pids=$(marked); [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
fi
rm -f "$d/state.json" "$d/pids" "$d/keymap-bound" /tmp/.X${displayNumber}-lock /tmp/.X11-unix/X${displayNumber} "$d"/chromium/Singleton*
true`;

/**
 * Starts the four processes and waits for each to be usable: the display answers, x11vnc
 * listens, the browser's DevTools listen and its window is shown. Prints the DevTools path.
 * $1: seconds to wait in all; $2: a marker for ORRERY_DESKTOP; then the argv of each process.
 */
function startScript(size: ScreenSize, seconds: number, marker: string): string {
  const steps = [
    `start Xvfb ${shellWords(xvfbArgs(size))}`,
    'until xdotool getdisplaygeometry >/dev/null 2>&1; do waiting "the X display"; done',
    `cat > openbox.xml <<'EOF'\n${openboxConfig}\nEOF`,
    `start openbox openbox --config-file ${desktopDir}/openbox.xml`,
    `start x11vnc ${shellWords(x11vncArgs())}`,
    `start chromium ${shellWords(chromiumArgs(size))}`,
    `until grep -q '^PORT=${desktopPorts.vnc}' x11vnc.log; do waiting x11vnc; done`,
    "until grep -q '^DevTools listening on ws://' chromium.log; do waiting 'the browser'; done",
    'until xdotool search --onlyvisible --class chromium >/dev/null 2>&1; do waiting "the browser window"; done',
    'mv pids.new pids',
    "grep -m1 '^DevTools listening on ws://' chromium.log | sed 's|^DevTools listening on ws://[^/]*||'",
  ];
  return `
set -u
d=${desktopDir}; end=$(( $(date +%s) + ${seconds} ))
mkdir -p "$d" /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix && cd "$d" && : > pids.new || exit 1
export ORRERY_DESKTOP=${marker}
start() { name=$1; shift; setsid "$@" </dev/null >"$name.log" 2>&1 & echo "$name $!" >> pids.new; }
# Alive and not a zombie: right after start the process may still be \`setsid\` before its exec,
# so its name is no test yet.
alive() { state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null); [ -n "$state" ] && [ "$state" != Z ]; }
waiting() {
  for line in $(cat pids.new | tr ' ' ':'); do
    alive "\${line#*:}" || { echo "\${line%%:*} exited:" >&2; tail -n 20 "\${line%%:*}.log" >&2; exit 1; }
  done
  [ "$(date +%s)" -lt "$end" ] || { echo "timed out waiting for $1" >&2; exit 1; }
  sleep 0.1
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
