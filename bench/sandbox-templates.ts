// A sandbox from a template against one from the base (issue 48: "as fast to create"), on the
// sandbox runtime itself, alternated in one run: create to running, then destroy. Also prints the
// template's build time (a recipe with one Debian package and a command) and a snapshot's.
//   npx tsx bench/sandbox-templates.ts [--rounds 10]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { recordedIds } from '../sandbox-runtime/state.ts';
import { buildTemplate } from '../sandbox-runtime/template-build.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' } } });
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'orrery-templates-'));
const runtime = new SandboxRuntime({ dir });

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

try {
  await runtime.prepare();
  const [template, buildMs] = await timed(() =>
    buildTemplate(runtime, 'bench-jq', { packages: ['jq'], run: ['echo built > /etc/bench'] }),
  );
  if (template.status !== 'ready') throw new Error(`the template failed: ${template.failure}`);
  const fromBase: number[] = [];
  const fromTemplate: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const from of round % 2 === 0 ? ['base', 'template'] : ['template', 'base']) {
      const id = `bench-${from}-${round}`;
      const [, ms] = await timed(() =>
        runtime.create(id, { size: 'small', ...(from === 'template' ? { template: 'bench-jq' } : {}) }),
      );
      (from === 'base' ? fromBase : fromTemplate).push(ms);
      if (round < rounds - 1) await runtime.destroy(id);
    }
  }
  await runtime.exec(
    `bench-template-${rounds - 1}`,
    'dd if=/dev/urandom of=/root/data bs=1M count=50 2>/dev/null',
  );
  const [, snapshotMs] = await timed(() =>
    runtime.snapshot(`bench-template-${rounds - 1}`, 'bench-snapshot'),
  );
  const line = (name: string, samples: number[]) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return `  ${name}: p50 ${percentile(sorted, 50).toFixed(0)} ms, p90 ${percentile(sorted, 90).toFixed(0)} ms (${sorted.length})`;
  };
  console.log(machineLine());
  console.log(`templates: ${rounds} creates each, alternated, on the runtime`);
  console.log(line('create from the base', fromBase));
  console.log(line('create from a template', fromTemplate));
  console.log(`  template build (jq and one command, apt update included): ${(buildMs / 1000).toFixed(1)} s`);
  console.log(`  snapshot of a sandbox with 50 MB written: ${snapshotMs.toFixed(0)} ms`);
} finally {
  for (const id of recordedIds(dir)) await runtime.destroy(id).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
