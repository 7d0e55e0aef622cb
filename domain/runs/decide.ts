import { centsOfMicrodollars, hardwareMicrodollarsPerSecond } from '../billing/price.ts';
import type { CommandBody } from '../command-body.ts';
import type { SandboxSize } from '../sandboxes/events.ts';
import { RunError } from './errors.ts';
import type { Actor, OutputStream, Placement, RunEvent } from './events.ts';
import { checkResult } from './result.ts';
import { ceilingSeconds, isActive, meteredSeconds, type Run, type RunState } from './run.ts';

// Commands on a run, decided against its current state (Emmett's decider shape, as
// domain/sandboxes/decide.ts). Ids, time and what the API looked up (has the org credit? can this
// host hold the size?) arrive on the command, so the decision is pure.
//
// Placement refuses before anything is recorded or charged: no credit, a size this deployment
// cannot hold, a ceiling below one second of the size. Everything after placement comes from the
// runner and never refuses: a report that arrives late (output after the end, a second end)
// decides nothing. A stop on an ended run decides nothing too, like `<cli> stop` on a finished
// run, which exits 0 (spec 002, "Command-line tool behaviour in scripts").

interface CommandMeta {
  eventId: string;
  runId: string;
  orgId: string;
  now: Date;
}

export type RunCommand =
  | (CommandMeta &
      Placement & {
        type: 'PlaceRun';
        /** The org's balance is above zero (domain/billing/balance.ts, read by the API). */
        hasCredit: boolean;
        /** This deployment's hosts can hold the size (the catalog's `available`). */
        sizeAvailable: boolean;
      })
  | (CommandMeta & { type: 'ReportStarted' })
  | (CommandMeta & { type: 'AppendOutput'; stream: OutputStream; text: string })
  | (CommandMeta & { type: 'StoreResult'; contents: Uint8Array })
  | (CommandMeta & { type: 'ReportExit'; exitCode: number })
  | (CommandMeta & { type: 'MeterRun'; stretchSeconds: number })
  | (CommandMeta & {
      type: 'FailRun';
      failure: string;
      /**
       * The process that ran it is gone (recovery after a restart): when it stopped is unknown,
       * so the run is billed what was recorded (`RunMetered`), never the time since.
       */
      lost?: boolean;
    })
  | (CommandMeta & { type: 'StopRun'; stoppedBy: Actor })
  | (CommandMeta & { type: 'ReachCeiling' });

/** A command without what the shell adds (ids, org, time), one per kind. */
export type RunCommandBody = CommandBody<RunCommand, CommandMeta>;

const base = (command: CommandMeta) => ({
  eventId: command.eventId,
  runId: command.runId,
  orgId: command.orgId,
  occurredAt: command.now,
});

type Decision<T extends RunCommand['type']> = (
  command: Extract<RunCommand, { type: T }>,
  state: RunState,
) => RunEvent[];

/** The least ceiling of a size: one second of it (a run must be able to run at all). */
export function minimumCeilingMicrodollars(size: SandboxSize): number {
  return hardwareMicrodollarsPerSecond[size];
}

/** A placement decided twice for the same id (a retried command) decides nothing the second time. */
/**
 * What refuses a placement before anything is recorded: the org's credit, the size, the ceiling.
 * The API asks it before choosing a host (a refused run needs none); the host's `place` asks it again.
 */
export function refusePlacement(
  command: Pick<
    Extract<RunCommand, { type: 'PlaceRun' }>,
    'hasCredit' | 'sizeAvailable' | 'size' | 'ceilingMicrodollars'
  >,
): void {
  if (!command.hasCredit) throw new RunError('insufficient_credit', { param: 'ceiling_cents' });
  if (!command.sizeAvailable)
    throw new RunError('size_unavailable', {
      param: 'size',
      message: `The size \`${command.size}\` is not available on this deployment: choose one that GET /api/catalog lists as available.`,
    });
  const minimum = minimumCeilingMicrodollars(command.size);
  if (command.ceilingMicrodollars < minimum)
    throw new RunError('invalid_request', {
      param: 'ceiling_cents',
      message: `Invalid \`ceiling_cents\`: a run of size \`${command.size}\` needs a ceiling of at least ${centsOfMicrodollars(minimum)} cents, one second of it.`,
    });
}

const place: Decision<'PlaceRun'> = (command, state) => {
  if (state) return [];
  refusePlacement(command);
  const {
    name,
    size,
    command: text,
    envNames,
    files,
    ceilingMicrodollars,
    placedBy,
    host,
    network,
    template,
  } = command;
  return [
    {
      ...base(command),
      type: 'RunPlaced',
      name,
      size,
      command: text,
      envNames,
      files,
      ceilingMicrodollars,
      placedBy,
      host,
      network,
      template,
    },
  ];
};

const reportStarted: Decision<'ReportStarted'> = (command, state) =>
  state?.status === 'placed' ? [{ ...base(command), type: 'RunStarted' }] : [];

/**
 * Output is numbered per stream from 1, with no gap; output after the end is dropped. Postgres
 * keeps no NUL in text (domain/text.ts), so a NUL the command printed reads as U+FFFD.
 */
const appendOutput: Decision<'AppendOutput'> = (command, state) => {
  if (state?.status !== 'running' || command.text === '') return [];
  const seq = state.lastSeq[command.stream] + 1;
  const text = command.text.replaceAll('\u0000', '\uFFFD');
  return [{ ...base(command), type: 'RunOutputAppended', stream: command.stream, seq, text }];
};

/** Read once the command has exited, before its end is recorded; the first word stays. */
const storeResult: Decision<'StoreResult'> = (command, state) => {
  if (!state || !isActive(state.status) || state.result !== null || state.resultRefused !== null) return [];
  const checked = checkResult(command.contents);
  return checked.ok
    ? [{ ...base(command), type: 'RunResultStored', result: checked.value }]
    : [{ ...base(command), type: 'RunResultRefused', reason: checked.message }];
};

const billed = (state: Run, now: Date) => meteredSeconds(state, now);

/** Records the stretches run to their end so far, when one more has ended (the last second begun is billed at the end). */
const meterRun: Decision<'MeterRun'> = (command, state) => {
  if (state?.status !== 'running' || state.startedAt === null) return [];
  const stretch = command.stretchSeconds;
  const elapsed = Math.floor((command.now.getTime() - state.startedAt.getTime()) / 1000);
  const whole = Math.floor(Math.min(elapsed, ceilingSeconds(state)) / stretch) * stretch;
  return whole > state.recordedSeconds
    ? [{ ...base(command), type: 'RunMetered', meteredSeconds: whole }]
    : [];
};

const reportExit: Decision<'ReportExit'> = (command, state) =>
  state && isActive(state.status)
    ? [
        {
          ...base(command),
          type: 'RunFinished',
          exitCode: command.exitCode,
          failure: null,
          billedSeconds: billed(state, command.now),
        },
      ]
    : [];

const failRun: Decision<'FailRun'> = (command, state) =>
  state && isActive(state.status)
    ? [
        {
          ...base(command),
          type: 'RunFinished',
          exitCode: null,
          failure: command.failure,
          billedSeconds: command.lost ? state.recordedSeconds : billed(state, command.now),
        },
      ]
    : [];

const stopRun: Decision<'StopRun'> = (command, state) => {
  if (!state) throw new RunError('not_found');
  if (!isActive(state.status)) return [];
  return [
    {
      ...base(command),
      type: 'RunStopped',
      stoppedBy: command.stoppedBy,
      billedSeconds: billed(state, command.now),
    },
  ];
};

/** Asked by the runner's timer at the ceiling's last second: the run is billed exactly the ceiling's seconds. */
const reachCeiling: Decision<'ReachCeiling'> = (command, state) =>
  state?.status === 'running'
    ? [{ ...base(command), type: 'RunCeilingReached', billedSeconds: ceilingSeconds(state) }]
    : [];

export function decide(command: RunCommand, state: RunState): RunEvent[] {
  switch (command.type) {
    case 'PlaceRun':
      return place(command, state);
    case 'ReportStarted':
      return reportStarted(command, state);
    case 'AppendOutput':
      return appendOutput(command, state);
    case 'StoreResult':
      return storeResult(command, state);
    case 'ReportExit':
      return reportExit(command, state);
    case 'MeterRun':
      return meterRun(command, state);
    case 'FailRun':
      return failRun(command, state);
    case 'StopRun':
      return stopRun(command, state);
    case 'ReachCeiling':
      return reachCeiling(command, state);
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
