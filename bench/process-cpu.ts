import { readdirSync, readFileSync } from 'node:fs';

// Where a benchmark's CPU goes on the machine, by part: every process is read from /proc and
// named by its command line, so the stack's parts (each Postgres backend, ClickHouse's and Kafka's
// threads), the platform's processes and the load generators are all counted, wherever they were
// started. On two shared cores a rate is bounded by the sum of what every part spends on each
// span, not by the API's alone.

const parts = [
  ['api', /api\/main\.ts/],
  ['consumers', /consumers\/main\.ts/],
  ['jobs', /jobs\/main\.ts/],
  ['clickhouse', /clickhouse-server/],
  ['kafka', /kafka\.Kafka/],
  ['postgres', /^(\S*\/)?postgres(:| )/],
  ['registry', /apicurio/],
  ['model', /model-server\.py/],
  ['telemetrygen', /telemetrygen/],
  ['collector', /otelcol-peer/],
  ['bench/ingest', /bench\/ingest\.ts/],
] as const satisfies readonly (readonly [string, RegExp])[];
export type Part = (typeof parts)[number][0];

/**
 * User plus system CPU of each process so far, in ms, by pid, for the processes of a part; and the
 * CPU time the host has taken from the machine's cores so far (`stolenMs`).
 */
export interface CpuReading {
  processes: Map<number, { part: Part; ms: number }>;
  stolenMs: number;
}

/** Each part's CPU between two readings, in ms, largest first, and what the host took meanwhile. */
export interface CpuSpent {
  byPart: [Part, number][];
  stolenMs: number;
}

// Clock ticks are USER_HZ, 100 a second on Linux whatever the kernel's own rate.
const ticksToMs = 10;

/** This thread's CPU time, user and system, in ms. */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * The CPU time the host ran other guests while this machine's cores were waiting to run (steal,
 * all cores together) so far, in ms. A run with steal had less of the cores than its CPU line
 * shows, so each bench prints it beside its figures.
 */
export function stolenMs(): number {
  // The first line sums all cores: cpu user nice system idle iowait irq softirq steal ...
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  return Number(fields[8] ?? 0) * ticksToMs;
}

/** CPU time (user + system) of one process so far, in ms. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * ticksToMs;
}

function partOf(commandLine: string): Part | undefined {
  return parts.find(([, pattern]) => pattern.test(commandLine))?.[0];
}

export function readCpu(): CpuReading {
  const processes: CpuReading['processes'] = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const part = partOf(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      if (part) processes.set(pid, { part, ms: processCpuMs(pid) });
    } catch {
      // The process ended between the listing and the read: it is counted in neither reading.
    }
  }
  return { processes, stolenMs: stolenMs() };
}

/**
 * What was spent between two readings. A process started in between counts whole; one that ended
 * in between is lost (a Postgres pool's backends and every part's main process live through a run).
 */
export function cpuBetween(before: CpuReading, after: CpuReading): CpuSpent {
  const byPart = new Map<Part, number>();
  for (const [pid, { part, ms }] of after.processes) {
    const earlier = before.processes.get(pid);
    const spent = earlier?.part === part ? ms - earlier.ms : ms;
    byPart.set(part, (byPart.get(part) ?? 0) + spent);
  }
  return {
    byPart: [...byPart].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]),
    stolenMs: after.stolenMs - before.stolenMs,
  };
}

/**
 * One line: each part's CPU per 1,000 units of work and the cores it kept busy over the run, and
 * the cores the host took meanwhile.
 */
export function cpuLine(spent: CpuSpent, units: number, unitName: string, seconds: number): string {
  const total = spent.byPart.reduce((sum, [, ms]) => sum + ms, 0);
  const perThousand = (ms: number) => ((ms / units) * 1000).toFixed(0);
  const cores = (ms: number) => (ms / 1000 / seconds).toFixed(2);
  const each = spent.byPart.map(([part, ms]) => `${part} ${perThousand(ms)} ms (${cores(ms)})`);
  return `CPU per 1,000 ${unitName} (cores busy): ${each.join(', ')}; all ${perThousand(total)} ms (${cores(total)}); taken by the host (steal): ${cores(spent.stolenMs)} cores`;
}
