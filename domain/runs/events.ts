import type { SandboxSize } from '../sandboxes/events.ts';
import type { NetworkPolicy } from '../sandboxes/network.ts';
import type { RunCommandLine } from './command-line.ts';

// The run stream's facts (topic orrery.run.v1, keyed by run id), in the past tense (issue 16: a
// run is a command executed in a fresh sandbox of a size from the catalog, with the caller's
// working files, environment variables and a spend ceiling).
//
// Why these and no more:
// - The API publishes `RunPlaced` once the request is checked; its runner (api/runs/runner.ts)
//   publishes the rest as the command goes: `RunStarted` once the sandbox holds the files and the
//   command runs, `RunOutputAppended` as it prints, and one terminal event.
// - Terminal events: `RunFinished` (the command exited, or could not start: `exitCode` null and a
//   `failure`), `RunStopped` (someone asked), `RunCeilingReached` (its cost reached the ceiling).
//   Each carries the seconds billed, so the read model shows what the run cost.
// - `RunMetered`: the seconds on hardware metered so far, recorded every stretch (metering.ts)
//   just before the stretch's usage event, so a runner that dies leaves on the run exactly what
//   it billed, and recovery can publish those stretches again (their ids make that harmless).
// - `RunResultStored` / `RunResultRefused`: what the command left at `$ORRERY_RESULT_PATH`.
// - Never a secret in an event: events are kept forever and read by every projection. So
//   `RunPlaced` names the environment variables but holds none of their values, and names the
//   working files with their sizes but holds none of their bytes. The values and bytes go from
//   the request straight to the runner in the same process, in memory only, and into the
//   sandbox; a run whose API process dies is finished as failed on recovery, never started again,
//   so nothing needs them later.

export const outputStreams = ['stdout', 'stderr'] as const;
export type OutputStream = (typeof outputStreams)[number];

/** Who placed or stopped a run: an API key (and the person who made it, if any), or a person at the dashboard. */
export type Actor =
  | { kind: 'key'; keyId: string; personId: string | null }
  | { kind: 'person'; personId: string };

export interface WorkingFile {
  /** Relative to the run's working directory (requests.ts). */
  path: string;
  sizeBytes: number;
}

/** What a run is asked to be: the command placing it, its `RunPlaced`, and its state all carry it. */
export interface Placement {
  name: string;
  size: SandboxSize;
  /**
   * A shell command line, or an argument vector run with no shell (command-line.ts). Events from
   * before vectors carry a string.
   */
  command: RunCommandLine;
  /** Names only: values may be secrets (see above). */
  envNames: string[];
  files: WorkingFile[];
  ceilingMicrodollars: number;
  placedBy: Actor;
  /** The sandbox host that carries the run out (domain/sandboxes/hosts.ts). */
  host: string;
  /**
   * What its sandbox may reach (domain/sandboxes/network.ts); `none` in events from before
   * sandboxes had a network, whose runs had loopback only.
   */
  network: NetworkPolicy;
  /** The template its sandbox is made from (domain/templates/), or null: the base. */
  template: string | null;
}

interface EventBase {
  eventId: string;
  runId: string;
  orgId: string;
  occurredAt: Date;
}

export type RunEvent =
  | (EventBase & Placement & { type: 'RunPlaced' })
  | (EventBase & { type: 'RunStarted' })
  | (EventBase & { type: 'RunOutputAppended'; stream: OutputStream; seq: number; text: string })
  | (EventBase & { type: 'RunMetered'; meteredSeconds: number })
  | (EventBase & { type: 'RunResultStored'; result: string })
  | (EventBase & { type: 'RunResultRefused'; reason: string })
  | (EventBase & {
      type: 'RunFinished';
      /** null: the command never ran (or its end was never seen); `failure` says why. */
      exitCode: number | null;
      failure: string | null;
      billedSeconds: number;
    })
  | (EventBase & { type: 'RunStopped'; stoppedBy: Actor; billedSeconds: number })
  | (EventBase & { type: 'RunCeilingReached'; billedSeconds: number });

export type RunEventType = RunEvent['type'];
