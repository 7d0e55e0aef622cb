import { exitCodes, Failure } from './failures.ts';
import { type Palette, paintStatus } from './palette.ts';

// What the tool reads of a run (README "Runs": the run object), how it says one in a line, and
// the exit code a finished run gives `run` and `logs -f` (spec 002: the run's own exit code).

export interface RunObject {
  id: string;
  name: string;
  status: string;
  size: string;
  exit_code: number | null;
  failure: string | null;
  ceiling_cents: number;
  cost_cents: number;
  billed_seconds: number;
  placed_at: string;
  has_result: boolean;
  result_refused: string | null;
  /** Absent from an API from before runs had a network. */
  network?: { egress: string; allow: string[]; deny: string[] };
  /** The template its sandbox started from; absent from an API from before templates. */
  template?: string | null;
}

export const activeStatuses = new Set(['placed', 'running']);

/** The run of a `{ data: run }` answer (or a run itself), checked for what the tool reads. */
export function runOf(body: unknown, what: string): RunObject {
  const data = (body as { data?: unknown } | undefined)?.data ?? body;
  const run = data as Partial<RunObject> | undefined;
  if (typeof run?.id !== 'string' || typeof run.name !== 'string' || typeof run.status !== 'string')
    throw new Failure(`The API answered ${what} without a run: check --api-url.`);
  return run as RunObject;
}

/**
 * The run's exit code when it exited by itself (0 to 255; another number, which no shell could
 * report, is 1); 1 when it ended without one: it could not start, was stopped, or reached its
 * ceiling. A script tells those apart with `--json` (`status`, `failure`).
 */
export function exitCodeOf(run: Pick<RunObject, 'exit_code'>): number {
  const code = run.exit_code;
  if (code === null) return exitCodes.failed;
  return Number.isInteger(code) && code >= 0 && code <= 255 ? code : exitCodes.failed;
}

/** `0.006 cents`: cents to the four places billing keeps. */
export const centsText = (cents: number) => `${Number(cents.toFixed(4))} cents`;

/** `train (run_…) succeeded: exit 0 after 3 s, 0.006 cents`, the status in its colour. */
export function describeEnd(run: RunObject, palette: Palette): string {
  const words: Record<string, string> = {
    succeeded: 'succeeded',
    failed: 'failed',
    stopped: 'was stopped',
    ceiling_reached: `reached its ceiling of ${centsText(run.ceiling_cents)} and was stopped`,
    placed: 'is placed',
    running: 'is running',
  };
  const how = [
    run.exit_code !== null ? `exit ${run.exit_code}` : undefined,
    run.failure ?? undefined,
    `${run.billed_seconds} s on ${run.size}`,
    centsText(run.cost_cents),
  ].filter((part) => part !== undefined);
  return `${run.name} ${palette.muted(`(${run.id})`)} ${paintStatus(palette, run.status, words[run.status] ?? run.status)}: ${how.join(', ')}`;
}

/** Rows as columns two spaces apart; a cell's paint is applied after its padding is measured. */
export function columns(rows: { text: string; paint?: (text: string) => string }[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.text.length);
    });
  return rows.map((row) =>
    row
      .map((cell, index) => {
        const painted = cell.paint ? cell.paint(cell.text) : cell.text;
        return index === row.length - 1 ? painted : painted + ' '.repeat(widths[index]! - cell.text.length);
      })
      .join('  '),
  );
}
