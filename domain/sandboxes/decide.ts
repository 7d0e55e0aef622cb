import { invalidRequest, SandboxError, sandboxLost } from './errors.ts';
import type { DesktopEndpoints, Metadata, SandboxEvent, SandboxSize } from './events.ts';
import { type NetworkPolicy, sameNetwork } from './network.ts';
import type { Sandbox, SandboxState } from './sandbox.ts';
import { defaultResolution, formatResolution, type ScreenSize } from './screen-geometry.ts';

// Commands on a sandbox, decided against its current state (Emmett's decider shape; spec,
// "States and transitions"). Ids, time and what the API looked up (is the name taken?) arrive
// on the command, so the decision is pure. Values arrive parsed (requests.ts).
//
// Repeats decide nothing instead of refusing, like Stripe and like `<cli> stop`: stopping a
// stopped sandbox, resuming a running or starting one, destroying a deleted one, stopping a
// stopped desktop, starting a running desktop at the same resolution. A client retrying after a
// lost answer then gets the sandbox as it is. Reports from the runtime (started, desktop ready)
// that arrive late or twice decide nothing either.
//
// A retry of `create` with the same idempotency key never reaches `decide`: the API finds the
// sandbox the first attempt created in the read model and answers with it.

/** Uses closer together than this are not recorded; the idle timeout waits this much longer, so it never fires early. */
export const useRecordingIntervalSeconds = 10;

interface CommandMeta {
  eventId: string;
  /** The sandbox whose stream the command is decided on (a fork's source for `ForkSandbox`). */
  sandboxId: string;
  orgId: string;
  now: Date;
}

export type SandboxCommand =
  | (CommandMeta & {
      type: 'CreateSandbox';
      name: string;
      nameTaken: boolean;
      size: SandboxSize;
      metadata: Metadata;
      idleTimeoutSeconds: number;
      idempotencyKey: string | null;
      /** The sandbox host placement chose (domain/sandboxes/hosts.ts). */
      host: string;
      network: NetworkPolicy;
      /** The ready template it is made from (domain/templates/decide.ts requireReady), or null. */
      template: string | null;
    })
  | (CommandMeta & { type: 'ForkSandbox'; copyId: string; name: string; nameTaken: boolean })
  | (CommandMeta & { type: 'ReportStarted' })
  | (CommandMeta & { type: 'StopSandbox' })
  | (CommandMeta & { type: 'ResumeSandbox' })
  | (CommandMeta & { type: 'RestartSandbox' })
  | (CommandMeta & { type: 'ExpireIdle' })
  | (CommandMeta & {
      type: 'UpdateSandbox';
      metadata?: Metadata;
      idleTimeoutSeconds?: number;
      /** Replaces the whole policy. */
      network?: NetworkPolicy;
    })
  | (CommandMeta & { type: 'RecordUse' })
  | (CommandMeta & { type: 'SetSecrets' })
  | (CommandMeta & { type: 'DestroySandbox' })
  | (CommandMeta & { type: 'MarkLost' })
  | (CommandMeta & { type: 'StartDesktop'; size?: ScreenSize })
  | (CommandMeta & { type: 'ReportDesktopReady'; endpoints: DesktopEndpoints })
  | (CommandMeta & { type: 'StopDesktop' });

const base = (command: CommandMeta) => ({
  eventId: command.eventId,
  sandboxId: command.sandboxId,
  orgId: command.orgId,
  occurredAt: command.now,
});

/** Any sandbox not deleted; otherwise `not_found`. */
export function requireExisting(state: SandboxState): Sandbox {
  if (!state || state.status === 'deleted') throw new SandboxError('not_found');
  return state;
}

/** For exec, files and the desktop: a running sandbox; otherwise `not_running`. */
export function requireRunning(state: SandboxState): Sandbox {
  const sandbox = requireExisting(state);
  if (sandbox.status === 'lost') throw sandboxLost();
  if (sandbox.status === 'starting') {
    throw new SandboxError('not_running', { message: 'The sandbox is starting: retry in a few seconds.' });
  }
  if (sandbox.status !== 'running') throw new SandboxError('not_running');
  return sandbox;
}

/** For input, screenshots and accessibility: a running desktop; otherwise `no_desktop`. */
export function requireDesktop(state: SandboxState): Sandbox & { desktop: { status: 'running' } } {
  const sandbox = requireRunning(state);
  if (sandbox.desktop?.status !== 'running') throw new SandboxError('no_desktop');
  return { ...sandbox, desktop: sandbox.desktop };
}

function refuseTakenName(name: string, taken: boolean): void {
  if (taken)
    throw invalidRequest(
      'name',
      `The name \`${name}\` is taken in this org: choose another, or omit it for a default name.`,
    );
}

type Decision<T extends SandboxCommand['type']> = (
  command: Extract<SandboxCommand, { type: T }>,
  state: SandboxState,
) => SandboxEvent[];

/** A create decided twice for the same id (a redelivered command) decides nothing the second time. */
const create: Decision<'CreateSandbox'> = (command, state) => {
  if (state) return [];
  refuseTakenName(command.name, command.nameTaken);
  const { name, size, metadata, idleTimeoutSeconds, idempotencyKey, host, network, template } = command;
  return [
    {
      ...base(command),
      type: 'SandboxCreated',
      name,
      size,
      metadata,
      idleTimeoutSeconds,
      idempotencyKey,
      forkedFrom: null,
      hasSecrets: false,
      host,
      network,
      template,
    },
  ];
};

/**
 * Decided on the source, which it leaves unchanged; the event belongs to the copy's stream. The
 * copy stays on its source's host: its files are copied there, not across machines. It keeps its
 * source's network policy and template (issue 48), as the runtime's fork does.
 */
const fork: Decision<'ForkSandbox'> = (command, state) => {
  const source = requireExisting(state);
  if (source.status === 'lost') throw sandboxLost();
  refuseTakenName(command.name, command.nameTaken);
  return [
    {
      ...base(command),
      sandboxId: command.copyId,
      type: 'SandboxCreated',
      name: command.name,
      size: source.size,
      metadata: source.metadata,
      idleTimeoutSeconds: source.idleTimeoutSeconds,
      idempotencyKey: null,
      forkedFrom: source.id,
      hasSecrets: source.hasSecrets,
      host: source.host,
      network: source.network,
      template: source.template,
    },
  ];
};

const reportStarted: Decision<'ReportStarted'> = (command, state) =>
  requireKnown(state).status === 'starting' ? [{ ...base(command), type: 'SandboxStarted' }] : [];

/** A lost sandbox is as stopped as it gets: stopping it again decides nothing. */
const stop: Decision<'StopSandbox'> = (command, state) => {
  const { status } = requireExisting(state);
  return status === 'stopped' || status === 'lost'
    ? []
    : [{ ...base(command), type: 'SandboxStopped', reason: 'requested' }];
};

const resume: Decision<'ResumeSandbox'> = (command, state) => {
  const { status } = requireExisting(state);
  if (status === 'lost') throw sandboxLost();
  return status === 'stopped' ? [{ ...base(command), type: 'SandboxResumed' }] : [];
};

/**
 * Every process ends and a fresh init starts over the same files (issue 48): a running sandbox
 * only, refused as exec is otherwise. Never a repeat: each restart ends what runs by then.
 */
const restart: Decision<'RestartSandbox'> = (command, state) => {
  requireRunning(state);
  return [{ ...base(command), type: 'SandboxRestarted' }];
};

/**
 * Its host is gone for good (the fleet's job decides that, after the grace period): every sandbox
 * it held that is not deleted is lost. A host that comes back finds it so and clears it away.
 */
const markLost: Decision<'MarkLost'> = (command, state) => {
  const sandbox = requireKnown(state);
  return sandbox.status === 'deleted' || sandbox.status === 'lost'
    ? []
    : [{ ...base(command), type: 'SandboxLost', host: sandbox.host }];
};

/** Asked periodically by a scheduler, so it never refuses. */
const expireIdle: Decision<'ExpireIdle'> = (command, state) => {
  if (state?.status !== 'running' || state.idleTimeoutSeconds === 0) return [];
  const deadline =
    state.lastUsedAt.getTime() + (state.idleTimeoutSeconds + useRecordingIntervalSeconds) * 1000;
  return command.now.getTime() >= deadline
    ? [{ ...base(command), type: 'SandboxStopped', reason: 'idle_timeout' }]
    : [];
};

/** Only what changes is recorded; an update that changes nothing decides nothing. */
const update: Decision<'UpdateSandbox'> = (command, state) => {
  const sandbox = requireExisting(state);
  const changes: { metadata?: Metadata; idleTimeoutSeconds?: number; network?: NetworkPolicy } = {};
  if (command.metadata !== undefined && !sameMetadata(command.metadata, sandbox.metadata))
    changes.metadata = command.metadata;
  if (command.idleTimeoutSeconds !== undefined && command.idleTimeoutSeconds !== sandbox.idleTimeoutSeconds) {
    changes.idleTimeoutSeconds = command.idleTimeoutSeconds;
  }
  if (command.network !== undefined && !sameNetwork(command.network, sandbox.network))
    changes.network = command.network;
  return Object.keys(changes).length === 0 ? [] : [{ ...base(command), type: 'SandboxUpdated', ...changes }];
};

const recordUse: Decision<'RecordUse'> = (command, state) => {
  const sandbox = requireRunning(state);
  const since = command.now.getTime() - sandbox.lastUsedAt.getTime();
  return since >= useRecordingIntervalSeconds * 1000 ? [{ ...base(command), type: 'SandboxUsed' }] : [];
};

const setSecrets: Decision<'SetSecrets'> = (command, state) =>
  requireExisting(state).hasSecrets ? [] : [{ ...base(command), type: 'SandboxSecretsSet' }];

const destroy: Decision<'DestroySandbox'> = (command, state) =>
  requireKnown(state).status === 'deleted' ? [] : [{ ...base(command), type: 'SandboxDestroyed' }];

/** A running desktop at another resolution is refused rather than restarted behind the caller's back. */
const startDesktop: Decision<'StartDesktop'> = (command, state) => {
  const { desktop } = requireRunning(state);
  if (!desktop)
    return [{ ...base(command), type: 'DesktopStartRequested', size: command.size ?? defaultResolution }];
  if (command.size === undefined || formatResolution(command.size) === formatResolution(desktop.size))
    return [];
  throw invalidRequest(
    'resolution',
    `The desktop is already running at ${formatResolution(desktop.size)}: stop it first to start it at ${formatResolution(command.size)}.`,
  );
};

const reportDesktopReady: Decision<'ReportDesktopReady'> = (command, state) =>
  requireKnown(state).desktop?.status === 'starting'
    ? [{ ...base(command), type: 'DesktopStarted', ...command.endpoints }]
    : [];

const stopDesktop: Decision<'StopDesktop'> = (command, state) =>
  requireRunning(state).desktop ? [{ ...base(command), type: 'DesktopStopped' }] : [];

/** Deleted sandboxes included: for repeats of destroy and late runtime reports. */
function requireKnown(state: SandboxState): Sandbox {
  if (!state) throw new SandboxError('not_found');
  return state;
}

function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

export function decide(command: SandboxCommand, state: SandboxState): SandboxEvent[] {
  switch (command.type) {
    case 'CreateSandbox':
      return create(command, state);
    case 'ForkSandbox':
      return fork(command, state);
    case 'ReportStarted':
      return reportStarted(command, state);
    case 'StopSandbox':
      return stop(command, state);
    case 'ResumeSandbox':
      return resume(command, state);
    case 'RestartSandbox':
      return restart(command, state);
    case 'ExpireIdle':
      return expireIdle(command, state);
    case 'UpdateSandbox':
      return update(command, state);
    case 'RecordUse':
      return recordUse(command, state);
    case 'SetSecrets':
      return setSecrets(command, state);
    case 'DestroySandbox':
      return destroy(command, state);
    case 'MarkLost':
      return markLost(command, state);
    case 'StartDesktop':
      return startDesktop(command, state);
    case 'ReportDesktopReady':
      return reportDesktopReady(command, state);
    case 'StopDesktop':
      return stopDesktop(command, state);
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
