// What the disk quota costs (sandbox-runtime/sandbox-fs.ts), through the runtime itself (no API):
// time to a running sandbox, and time to a running fork of a sandbox that changed 50 MB (one
// 40 MB file and 2,000 files of 5 KB), then destroy; each with the quota (the layer in its own
// ext4 image) and without (`disk: 'unlimited'`, the layer on the host's filesystem), alternated
// so both see the same machine. Run as root, with the base built (`npm run stack -- start`).
//   npx tsx bench/sandbox-disk.ts [--creates 10] [--forks 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({
  options: { creates: { type: 'string', default: '10' }, forks: { type: 'string', default: '5' } },
});
const creates = Number(values.creates);
const forks = Number(values.forks);

const fill =
  'head -c 40000000 /dev/urandom > /root/blob && mkdir /root/small && cd /root/small && ' +
  'i=0; while [ $i -lt 2000 ]; do head -c 5120 /dev/urandom > f$i; i=$((i+1)); done';

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

const modes = ['quota', 'unlimited'] as const;
const dirs = modes.map(() => mkdtempSync(join(tmpdir(), 'orrery-bench-disk-')));
const runtimes = modes.map(
  (mode, index) => new SandboxRuntime({ dir: dirs[index]!, disk: mode === 'quota' ? 'auto' : 'unlimited' }),
);
const figures = modes.map(() => ({
  created: [] as number[],
  forked: [] as number[],
  destroyed: [] as number[],
}));

try {
  for (const runtime of runtimes) await runtime.prepare();
  for (let index = 0; index < creates; index += 1) {
    for (const [mode, runtime] of runtimes.entries()) {
      figures[mode]!.created.push(await timed(() => runtime.create(`bench-${index}`)));
      figures[mode]!.destroyed.push(await timed(() => runtime.destroy(`bench-${index}`)));
    }
  }
  for (const runtime of runtimes) {
    await runtime.create('bench-source');
    const filled = await runtime.exec('bench-source', fill, { timeoutSeconds: 300 });
    if (filled.result.exit_code !== 0) throw new Error(`filling failed: ${filled.result.stderr}`);
  }
  for (let index = 0; index < forks; index += 1) {
    for (const [mode, runtime] of runtimes.entries()) {
      figures[mode]!.forked.push(await timed(() => runtime.fork('bench-source', `bench-fork-${index}`)));
      await runtime.destroy(`bench-fork-${index}`);
    }
  }
  const line = (name: string, list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return `    ${name}: p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} ms (${sorted.length})`;
  };
  console.log(machineLine());
  for (const [mode, runtime] of runtimes.entries()) {
    const disk = (await runtime.status('bench-source')).limits.disk;
    console.log(`  ${modes[mode]} (${disk.applied ? `${disk.bytes / 1024 ** 3} GiB image` : disk.reason}):`);
    console.log(line('create to running', figures[mode]!.created));
    console.log(line('fork of 50 MB changed to running', figures[mode]!.forked));
    console.log(line('destroy', figures[mode]!.destroyed));
  }
} finally {
  for (const [mode, runtime] of runtimes.entries()) {
    for (const id of ['bench-source', ...Array.from({ length: forks }, (_, index) => `bench-fork-${index}`)])
      await runtime.destroy(id).catch(() => undefined);
    rmSync(dirs[mode]!, { recursive: true, force: true });
  }
}
