import { hardwareMicrodollars, hardwareMicrodollarsPerSecond } from '../billing/price.ts';
import type { Actor, OutputStream, Placement, RunEvent } from './events.ts';

// A run as the decider sees it: folded from its events by `evolve`, the one function the Postgres
// projection, the runner and the tests share (DESIGN, "The same pure function").

/**
 * The complete set of run statuses:
 * - `placed`: accepted and recorded; the runner is making its sandbox and writing its files.
 * - `running`: the command runs; time on hardware is metered from here.
 * - `succeeded`: the command exited 0.
 * - `failed`: the command exited with another code, or could not start, or its API process died
 *   while it ran (`failure` says which).
 * - `stopped`: stopped on request (`POST /api/runs/:name/stop`).
 * - `ceiling_reached`: its cost reached its spend ceiling, so it was stopped.
 * The last four are terminal: nothing changes a run after one of them.
 */
export const runStatuses = [
  'placed',
  'running',
  'succeeded',
  'failed',
  'stopped',
  'ceiling_reached',
] as const;
export type RunStatus = (typeof runStatuses)[number];

/** Holding hardware, or about to: what `GET /api/runs?status=active` lists. */
export const activeStatuses = ['placed', 'running'] as const satisfies readonly RunStatus[];

export function isActive(status: RunStatus): boolean {
  return (activeStatuses as readonly RunStatus[]).includes(status);
}

export interface Run extends Placement {
  id: string;
  orgId: string;
  status: RunStatus;
  placedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  exitCode: number | null;
  failure: string | null;
  stoppedBy: Actor | null;
  /** Seconds billed, once the run has ended; while it runs, `meteredSeconds()` says how many so far. */
  billedSeconds: number;
  /** Seconds whose usage was recorded (`RunMetered`), whole stretches while it runs. */
  recordedSeconds: number;
  /** The last sequence number appended on each stream (0: nothing yet). */
  lastSeq: Record<OutputStream, number>;
  /** The JSON object the command left at `$ORRERY_RESULT_PATH`, as text; or why it was not kept. */
  result: string | null;
  resultRefused: string | null;
}

/** `undefined`: no run with this id (the stream is empty). */
export type RunState = Run | undefined;

export function initialState(): RunState {
  return undefined;
}

/** The most seconds a run's ceiling pays for: it is stopped there, and never billed more. */
export function ceilingSeconds(run: Pick<Run, 'size' | 'ceilingMicrodollars'>): number {
  return Math.floor(run.ceilingMicrodollars / hardwareMicrodollarsPerSecond[run.size]);
}

/**
 * Seconds on hardware at `now`: from the start of the command, each second begun counts whole
 * (per-second billing, rounded up), never past the ceiling's seconds; once ended, what was billed.
 */
export function meteredSeconds(run: Run, now: Date): number {
  if (!isActive(run.status)) return run.billedSeconds;
  if (run.startedAt === null) return 0;
  const elapsedMs = Math.max(0, now.getTime() - run.startedAt.getTime());
  return Math.min(Math.ceil(elapsedMs / 1000), ceilingSeconds(run));
}

/** What the run has cost at `now`, in micro-dollars (exact). */
export function costMicrodollars(run: Run, now: Date): number {
  return hardwareMicrodollars(run.size, meteredSeconds(run, now));
}

export function evolve(state: RunState, event: RunEvent): RunState {
  if (event.type === 'RunPlaced') return state ?? placed(event);
  if (!state) return state;
  const at = event.occurredAt;
  switch (event.type) {
    case 'RunStarted':
      return state.status === 'placed' ? { ...state, status: 'running', startedAt: at } : state;
    case 'RunOutputAppended':
      return {
        ...state,
        lastSeq: { ...state.lastSeq, [event.stream]: Math.max(state.lastSeq[event.stream], event.seq) },
      };
    case 'RunMetered':
      return { ...state, recordedSeconds: Math.max(state.recordedSeconds, event.meteredSeconds) };
    case 'RunResultStored':
      return { ...state, result: event.result, resultRefused: null };
    case 'RunResultRefused':
      return { ...state, result: null, resultRefused: event.reason };
    case 'RunFinished':
      return ended(state, at, event.billedSeconds, {
        status: event.exitCode === 0 ? 'succeeded' : 'failed',
        exitCode: event.exitCode,
        failure: event.failure,
      });
    case 'RunStopped':
      return ended(state, at, event.billedSeconds, { status: 'stopped', stoppedBy: event.stoppedBy });
    case 'RunCeilingReached':
      return ended(state, at, event.billedSeconds, { status: 'ceiling_reached' });
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** A terminal event on an ended run changes nothing: the first end is the run's end. */
function ended(state: Run, at: Date, billedSeconds: number, changes: Partial<Run>): Run {
  if (!isActive(state.status)) return state;
  return { ...state, ...changes, endedAt: at, billedSeconds };
}

function placed(event: Extract<RunEvent, { type: 'RunPlaced' }>): Run {
  return {
    id: event.runId,
    orgId: event.orgId,
    status: 'placed',
    name: event.name,
    size: event.size,
    command: event.command,
    envNames: event.envNames,
    files: event.files,
    ceilingMicrodollars: event.ceilingMicrodollars,
    placedBy: event.placedBy,
    host: event.host,
    network: event.network,
    template: event.template,
    placedAt: event.occurredAt,
    startedAt: null,
    endedAt: null,
    exitCode: null,
    failure: null,
    stoppedBy: null,
    billedSeconds: 0,
    recordedSeconds: 0,
    lastSeq: { stdout: 0, stderr: 0 },
    result: null,
    resultRefused: null,
  };
}
