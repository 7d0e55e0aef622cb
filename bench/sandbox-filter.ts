// What the confinement (sandbox-runtime/confine.ts: Docker's capabilities and seccomp filter)
// costs: sandboxes confined and without any, side by side in one run on the sandbox runtime itself, timing
// create, an exec of `true`, a desktop's start (to a ready browser) and a screenshot.
//   npx tsx bench/sandbox-filter.ts [--rounds 3] [--execs 50] [--screenshots 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDesktop } from '../sandbox-runtime/desktop/index.ts';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { recordedIds } from '../sandbox-runtime/state.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    execs: { type: 'string', default: '50' },
    screenshots: { type: 'string', default: '20' },
  },
});
const rounds = Number(values.rounds);
const execs = Number(values.execs);
const screenshots = Number(values.screenshots);

const modes = ['docker-default', 'off'] as const;
type Mode = (typeof modes)[number];
const dirs = Object.fromEntries(
  modes.map((mode) => [mode, mkdtempSync(join(tmpdir(), `orrery-filter-${mode}-`))]),
);
const runtimes = Object.fromEntries(
  modes.map((mode) => [mode, new SandboxRuntime({ dir: dirs[mode]!, confinement: mode })]),
) as Record<Mode, SandboxRuntime>;
const figures = Object.fromEntries(
  modes.map((mode) => [
    mode,
    { create: [] as number[], exec: [] as number[], desktop: [] as number[], shot: [] as number[] },
  ]),
) as Record<Mode, { create: number[]; exec: number[]; desktop: number[]; shot: number[] }>;

const timed = async (into: number[], work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  into.push(performance.now() - started);
};

try {
  for (const runtime of Object.values(runtimes)) await runtime.prepare();
  for (let round = 0; round < rounds; round += 1) {
    // Alternated within each round, so a busy moment of the machine falls on both.
    for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
      const runtime = runtimes[mode];
      const desktop = createDesktop(runtime);
      const id = `filter-${mode === 'off' ? 'off' : 'on'}-${round}`;
      const figure = figures[mode];
      await timed(figure.create, () => runtime.create(id, { size: 'small' }));
      for (let index = 0; index < execs; index += 1) await timed(figure.exec, () => runtime.exec(id, 'true'));
      await timed(figure.desktop, () => desktop.start(id, { width: 1024, height: 768 }));
      for (let index = 0; index < screenshots; index += 1)
        await timed(figure.shot, () => desktop.screenshot(id));
      await runtime.destroy(id);
    }
  }
  const line = (name: string, samples: number[]) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return `${name} p50 ${percentile(sorted, 50).toFixed(1)} ms p90 ${percentile(sorted, 90).toFixed(1)} ms`;
  };
  console.log(machineLine());
  for (const mode of modes) {
    const { create, exec, desktop, shot } = figures[mode];
    console.log(
      `confinement ${mode.padEnd(14)} ${line('create', create)} | ${line('exec true', exec)} | ` +
        `${line('desktop start', desktop)} | ${line('screenshot', shot)}`,
    );
  }
} finally {
  for (const mode of modes) {
    for (const id of recordedIds(dirs[mode]!)) await runtimes[mode].destroy(id).catch(() => undefined);
    rmSync(dirs[mode]!, { recursive: true, force: true });
  }
}
