import type { NetworkPolicy } from './network.ts';
import type { ScreenSize } from './screen-geometry.ts';

// The sandbox stream's facts (topic orrery.sandbox.v1, keyed by sandbox id), in the past tense.
// Each command decides at most one event, so the event id arrives on the command.
//
// Why these and no more:
// - The API publishes `SandboxCreated` (also for a fork's copy, with `forkedFrom`) and
//   `SandboxResumed`; the runtime answers with `SandboxStarted` once the machine is up. That is
//   how `create`, `fork` and `resume` "resolve once running": the API waits for `SandboxStarted`.
// - `SandboxRestarted` (issue 48) ends every process and starts a fresh init over the same files:
//   like a resume, the sandbox is starting until the runtime reports `SandboxStarted`, and its
//   desktop is gone with its processes.
// - A fork changes nothing on its source (spec, "States and transitions"), so the source's
//   stream gets no event; the copy's `SandboxCreated` names the source.
// - The desktop follows the same two steps: `DesktopStartRequested` from the API, `DesktopStarted`
//   from the runtime once the browser is ready (it carries what the status shows).
// - A sandbox lives on one sandbox host (issue 47): `SandboxCreated` names it (a fork's copy is
//   on its source's), and the sandbox stays there. `SandboxLost` records that its host is gone
//   for good with its files and processes, so the sandbox cannot be resumed.
// - A sandbox's network policy (issue 48, network.ts) is part of what it is: `SandboxCreated`
//   carries it (a fork's copy, its source's), and `SandboxUpdated` carries a new one when an update
//   changes it. Events from before sandboxes had a network carry none and are read as `none`
//   (schemas/events/sandbox-mapping.ts): those sandboxes had loopback only.
// - A sandbox made from a template (issue 48, domain/templates/) names it in `SandboxCreated`
//   (a fork's copy, its source's): it lives on the template's host, and stands on its files.
// - `SandboxUsed` feeds the idle timeout; it is recorded at most every `useRecordingIntervalSeconds`
//   (see decide.ts) so a busy desktop does not write an event per click.

export const sandboxSizes = ['small', 'standard', 'large', 'xl'] as const;
export type SandboxSize = (typeof sandboxSizes)[number];

/** String labels; the metadata rules are checked when the request is parsed (requests.ts). */
export type Metadata = Record<string, string>;

export const stopReasons = ['requested', 'idle_timeout'] as const;
export type StopReason = (typeof stopReasons)[number];

interface EventBase {
  eventId: string;
  sandboxId: string;
  orgId: string;
  occurredAt: Date;
}

export interface DesktopEndpoints {
  /** X display inside the sandbox, e.g. `:1`. */
  display: string;
  vncPort: number;
  /** DevTools HTTP endpoint of the desktop's browser, reachable from inside the sandbox. */
  devtools: string;
  /** Browser name and version, e.g. `chromium 126.0.6478.126`. */
  browser: string;
}

export type SandboxEvent =
  | (EventBase & {
      type: 'SandboxCreated';
      name: string;
      size: SandboxSize;
      metadata: Metadata;
      idleTimeoutSeconds: number;
      idempotencyKey: string | null;
      /** The source's id when this sandbox is a fork's copy; its files are copied from there. */
      forkedFrom: string | null;
      /** A fork keeps its source's secrets (they live in its files), so tokens stay refused. */
      hasSecrets: boolean;
      /** The sandbox host that holds it (a host id, hosts.ts); `local` for events from before hosts. */
      host: string;
      /** Its network policy; a fork's copy has its source's. */
      network: NetworkPolicy;
      /** The template it was made from (domain/templates/), or null: the base; a fork's copy has its source's. */
      template: string | null;
    })
  | (EventBase & { type: 'SandboxStarted' })
  | (EventBase & { type: 'SandboxStopped'; reason: StopReason })
  | (EventBase & { type: 'SandboxResumed' })
  | (EventBase & { type: 'SandboxRestarted' })
  | (EventBase & {
      type: 'SandboxUpdated';
      metadata?: Metadata;
      idleTimeoutSeconds?: number;
      /** The whole new policy, when the update changed it. */
      network?: NetworkPolicy;
    })
  | (EventBase & { type: 'SandboxUsed' })
  | (EventBase & { type: 'SandboxSecretsSet' })
  | (EventBase & { type: 'SandboxDestroyed' })
  | (EventBase & { type: 'SandboxLost'; host: string })
  | (EventBase & { type: 'DesktopStartRequested'; size: ScreenSize })
  | (EventBase & ({ type: 'DesktopStarted' } & DesktopEndpoints))
  | (EventBase & { type: 'DesktopStopped' });

export type SandboxEventType = SandboxEvent['type'];
