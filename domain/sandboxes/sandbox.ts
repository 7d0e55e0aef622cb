import type { DesktopEndpoints, Metadata, SandboxEvent, SandboxSize } from './events.ts';
import type { NetworkPolicy } from './network.ts';
import { formatResolution, type ScreenSize } from './screen-geometry.ts';

// A sandbox as the decider sees it: folded from its events by `evolve`, the one function the
// Postgres projection, the runtime and the tests share (DESIGN, "The same pure function").

/**
 * The complete set of sandbox statuses (the spec leaves it open):
 * - `starting`: created, forked, resumed or restarted; the runtime is bringing it up. `create`,
 *   `fork`, `resume` and `restart` answer once it is `running`. exec, files and the desktop refuse with `not_running`;
 *   `stop()` stops it.
 * - `running`: usable; the idle timeout counts from the last use.
 * - `stopped`: by `stop()` or the idle timeout; files and processes are kept.
 * - `lost`: its sandbox host is gone for good, with its files and processes (issue 47): in the
 *   spec's terms a stopped sandbox that cannot be resumed; only `destroy` changes it.
 * - `deleted`: destroyed; files are gone; listed only with `all: true`; every command but a
 *   repeated `destroy` refuses with `not_found`.
 */
export const sandboxStatuses = ['starting', 'running', 'stopped', 'lost', 'deleted'] as const;
export type SandboxStatus = (typeof sandboxStatuses)[number];

/**
 * Absent: the desktop is not running. Processes survive `stop`, so the desktop does too; a
 * restart ends them, and the desktop with them.
 */
export type DesktopState =
  | { status: 'starting'; size: ScreenSize }
  | ({ status: 'running'; size: ScreenSize } & DesktopEndpoints);

export interface Sandbox {
  id: string;
  orgId: string;
  name: string;
  status: SandboxStatus;
  size: SandboxSize;
  metadata: Metadata;
  /** 0 means never. */
  idleTimeoutSeconds: number;
  idempotencyKey: string | null;
  forkedFrom: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Start of the idle clock: creation, start, resume, or the last recorded use. */
  lastUsedAt: Date;
  hasSecrets: boolean;
  /** The sandbox host that holds it (domain/sandboxes/hosts.ts). */
  host: string;
  /** What it may reach (network.ts); the host's runtime is brought in line with it. */
  network: NetworkPolicy;
  /** The template its files stand on (domain/templates/), or null: the base. */
  template: string | null;
  desktop?: DesktopState;
}

/** `undefined`: no sandbox with this id (the stream is empty). */
export type SandboxState = Sandbox | undefined;

export function initialState(): SandboxState {
  return undefined;
}

export function evolve(state: SandboxState, event: SandboxEvent): SandboxState {
  if (event.type === 'SandboxCreated') return state ?? created(event);
  if (!state) return state;
  const at = event.occurredAt;
  switch (event.type) {
    case 'SandboxStarted':
      return { ...state, status: 'running', lastUsedAt: at, updatedAt: at };
    case 'SandboxStopped':
      return { ...state, status: 'stopped', updatedAt: at };
    case 'SandboxResumed':
      return { ...state, status: 'starting', lastUsedAt: at, updatedAt: at };
    case 'SandboxRestarted':
      return { ...withoutDesktop(state), status: 'starting', lastUsedAt: at, updatedAt: at };
    case 'SandboxUpdated':
      return {
        ...state,
        metadata: event.metadata ?? state.metadata,
        idleTimeoutSeconds: event.idleTimeoutSeconds ?? state.idleTimeoutSeconds,
        network: event.network ?? state.network,
        updatedAt: at,
      };
    case 'SandboxUsed':
      return { ...state, lastUsedAt: at };
    case 'SandboxSecretsSet':
      return { ...state, hasSecrets: true, updatedAt: at };
    case 'SandboxDestroyed':
      return { ...withoutDesktop(state), status: 'deleted', updatedAt: at };
    case 'SandboxLost':
      return state.status === 'deleted' ? state : { ...withoutDesktop(state), status: 'lost', updatedAt: at };
    case 'DesktopStartRequested':
      return { ...state, desktop: { status: 'starting', size: event.size } };
    case 'DesktopStarted': {
      if (!state.desktop) return state;
      const { display, vncPort, devtools, browser } = event;
      return {
        ...state,
        desktop: { status: 'running', size: state.desktop.size, display, vncPort, devtools, browser },
      };
    }
    case 'DesktopStopped':
      return withoutDesktop(state);
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

function created(event: Extract<SandboxEvent, { type: 'SandboxCreated' }>): Sandbox {
  return {
    id: event.sandboxId,
    orgId: event.orgId,
    name: event.name,
    status: 'starting',
    size: event.size,
    metadata: event.metadata,
    idleTimeoutSeconds: event.idleTimeoutSeconds,
    idempotencyKey: event.idempotencyKey,
    forkedFrom: event.forkedFrom,
    createdAt: event.occurredAt,
    updatedAt: event.occurredAt,
    lastUsedAt: event.occurredAt,
    hasSecrets: event.hasSecrets,
    host: event.host,
    network: event.network,
    template: event.template,
  };
}

function withoutDesktop(state: Sandbox): Sandbox {
  const { desktop: _desktop, ...rest } = state;
  return rest;
}

/** The desktop status on the wire (spec, "Desktop status"); a desktop still starting is not running. */
export type DesktopStatus =
  | { running: false }
  | { running: true; size: string; display: string; vnc_port: number; devtools: string; browser: string };

export function desktopStatus(desktop: DesktopState | undefined): DesktopStatus {
  if (desktop?.status !== 'running') return { running: false };
  const { size, display, vncPort, devtools, browser } = desktop;
  return { running: true, size: formatResolution(size), display, vnc_port: vncPort, devtools, browser };
}
