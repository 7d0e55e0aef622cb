import { cpus, totalmem } from 'node:os';

/** One line naming the machine, printed with every benchmark's figures. */
export function machineLine(): string {
  const cores = cpus();
  return `machine: ${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, node ${process.version}`;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
