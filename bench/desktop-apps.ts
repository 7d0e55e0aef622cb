// The desktop with its apps (sandbox-runtime/desktop/session.ts), on the sandbox runtime itself:
// the base filesystem's size, the desktop's start to ready (the spec's ready: display, VNC,
// DevTools, a browser tab) and to the panel shown, its stop, the memory of an idle desktop and of
// one with the terminal, editor and file manager open, each app's start from its launcher to its
// window, and an accessibility tree of each. In a `small` sandbox (1 core), as most run.
//   npx tsx bench/desktop-apps.ts [--rounds 7]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDesktop } from '../sandbox-runtime/desktop/index.ts';
import { launcherCentre } from '../sandbox-runtime/desktop/session.ts';
import { builtRootfs, defaultRootfsCache, ensureRootfs } from '../sandbox-runtime/rootfs.ts';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { recordedIds } from '../sandbox-runtime/state.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
const rounds = Number(values.rounds);
const size = { width: 1280, height: 800 };

await ensureRootfs(defaultRootfsCache(), () => {});
const base = builtRootfs(defaultRootfsCache());
const { builtInSeconds } = JSON.parse(readFileSync(join(base, '.orrery-rootfs.json'), 'utf8')) as {
  builtInSeconds: number;
};
const baseBytes = Number(execFileSync('du', ['-sb', base], { encoding: 'utf8' }).split('\t')[0]);

const dir = mkdtempSync(join(tmpdir(), 'orrery-desktop-apps-'));
const runtime = new SandboxRuntime({ dir });
const desktop = createDesktop(runtime);
const id = 'desktop-apps';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const onDisplay = async (command: string) =>
  (await runtime.exec(id, command, { env: { DISPLAY: ':1' } })).result.stdout;
const shown = async (windowClass: string) =>
  (await onDisplay(`xdotool search --onlyvisible --class ${windowClass} 2>/dev/null`)).trim() !== '';
/** Polls every 20 ms until `windowClass` shows; the time it took from `since`. */
async function until(windowClass: string, since: number): Promise<number> {
  while (!(await shown(windowClass))) {
    if (performance.now() - since > 30_000) throw new Error(`no ${windowClass} window`);
    await sleep(20);
  }
  return performance.now() - since;
}
/** The memory the sandbox's processes take, each shared page counted once (PSS), in MiB. */
async function memoryMiB(): Promise<number> {
  const sum = `t=0; for p in /proc/[0-9]*; do k=$(awk '/^Pss:/{print $2}' $p/smaps_rollup 2>/dev/null); t=$((t+\${k:-0})); done; echo $((t/1024))`;
  return Number((await runtime.exec(id, sum)).result.stdout);
}
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const line = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => percentile(sorted, p).toFixed(0);
  return `p50 ${at(50)} ms, p90 ${at(90)} ms, max ${at(100)} ms (${samples.length} runs)`;
};

try {
  await runtime.prepare();
  await runtime.create(id, { size: 'small' });
  const ready: number[] = [];
  const panel: number[] = [];
  const stop: number[] = [];
  const idle: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    console.error(`round ${round + 1} of ${rounds}`);
    const started = performance.now();
    await desktop.start(id, size);
    ready.push(performance.now() - started);
    panel.push(await until('tint2', started));
    await sleep(3000);
    idle.push(await memoryMiB());
    stop.push(await timed(() => desktop.stop(id)));
  }

  await desktop.start(id, size);
  await until('tint2', performance.now());
  const apps = [
    { launcher: 1, windowClass: 'xfce4-terminal', app: 'terminal' },
    { launcher: 2, windowClass: 'mousepad', app: 'editor' },
    { launcher: 3, windowClass: 'thunar', app: 'files' },
  ];
  const opened: string[] = [];
  const trees: string[] = [];
  for (const { launcher, windowClass, app } of apps) {
    const started = performance.now();
    await desktop.input(id, { action: 'click', ...launcherCentre(launcher, size), button: 'left', count: 1 });
    opened.push(`${app} ${(await until(windowClass, started)).toFixed(0)} ms`);
  }
  await sleep(2000);
  for (const { app } of apps) {
    const options = { app, depth: 200, includeHidden: false };
    await desktop.accessibilityTree(id, options);
    trees.push(`${app} ${(await timed(() => desktop.accessibilityTree(id, options))).toFixed(0)} ms`);
  }
  const withApps = await memoryMiB();

  console.log(machineLine());
  console.log(`base filesystem: ${(baseBytes / 1024 ** 3).toFixed(2)} GiB, built in ${builtInSeconds} s`);
  console.log(`desktop start to ready: ${line(ready)}`);
  console.log(`desktop start to the panel shown: ${line(panel)}`);
  console.log(`desktop stop: ${line(stop)}`);
  console.log(
    `memory (PSS) of the idle desktop: ${idle.join(', ')} MiB; with the three apps open: ${withApps} MiB`,
  );
  console.log(`launcher click to window: ${opened.join(', ')}`);
  console.log(`accessibility tree: ${trees.join(', ')}`);
} finally {
  for (const sandbox of recordedIds(dir)) await runtime.destroy(sandbox).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
