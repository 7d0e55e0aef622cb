import {
  type Metadata,
  type SandboxEvent,
  type SandboxSize,
  type StopReason,
  sandboxSizes,
  stopReasons,
} from '../../domain/sandboxes/events.ts';
import { legacyHostId } from '../../domain/sandboxes/hosts.ts';
import { type Egress, egressModes, type NetworkPolicy, noNetwork } from '../../domain/sandboxes/network.ts';
import { text, type Wire, whole } from './wire.ts';

// SandboxEvent (domain) <-> orrery.sandbox.v1.SandboxEvent (protobuf, camelCase as protobufjs
// reads it). Enums travel by name; `null` strings travel as empty ones (an empty name, key or
// source id is never valid, so nothing is lost). An empty host is an event from before hosts; a
// creation without a network policy is one from before sandboxes had a network, read as `none`;
// one without a template, a sandbox made from the base.

const sizeNames: Record<SandboxSize, string> = {
  small: 'SANDBOX_SIZE_SMALL',
  standard: 'SANDBOX_SIZE_STANDARD',
  large: 'SANDBOX_SIZE_LARGE',
  xl: 'SANDBOX_SIZE_XL',
};

const reasonNames: Record<StopReason, string> = {
  requested: 'STOP_REASON_REQUESTED',
  idle_timeout: 'STOP_REASON_IDLE_TIMEOUT',
};

const egressNames: Record<Egress, string> = {
  open: 'EGRESS_OPEN',
  none: 'EGRESS_NONE',
};

const labels = (metadata: Metadata) => ({ labels: metadata });

const networkToWire = (policy: NetworkPolicy) => ({
  egress: egressNames[policy.egress],
  allow: policy.allow,
  deny: policy.deny,
});

export function sandboxEventToWire(event: SandboxEvent): Record<string, unknown> {
  const envelope = {
    eventId: event.eventId,
    sandboxId: event.sandboxId,
    orgId: event.orgId,
    occurredAtMs: event.occurredAt.getTime(),
  };
  switch (event.type) {
    case 'SandboxCreated':
      return {
        ...envelope,
        sandboxCreated: {
          name: event.name,
          size: sizeNames[event.size],
          metadata: labels(event.metadata),
          idleTimeoutSeconds: event.idleTimeoutSeconds,
          idempotencyKey: event.idempotencyKey ?? '',
          forkedFrom: event.forkedFrom ?? '',
          hasSecrets: event.hasSecrets,
          host: event.host,
          network: networkToWire(event.network),
          template: event.template ?? '',
        },
      };
    case 'SandboxStarted':
      return { ...envelope, sandboxStarted: {} };
    case 'SandboxStopped':
      return { ...envelope, sandboxStopped: { reason: reasonNames[event.reason] } };
    case 'SandboxResumed':
      return { ...envelope, sandboxResumed: {} };
    case 'SandboxRestarted':
      return { ...envelope, sandboxRestarted: {} };
    case 'SandboxUpdated':
      return {
        ...envelope,
        sandboxUpdated: {
          ...(event.metadata === undefined ? {} : { metadata: labels(event.metadata) }),
          ...(event.idleTimeoutSeconds === undefined ? {} : { idleTimeoutSeconds: event.idleTimeoutSeconds }),
          ...(event.network === undefined ? {} : { network: networkToWire(event.network) }),
        },
      };
    case 'SandboxUsed':
      return { ...envelope, sandboxUsed: {} };
    case 'SandboxSecretsSet':
      return { ...envelope, sandboxSecretsSet: {} };
    case 'SandboxDestroyed':
      return { ...envelope, sandboxDestroyed: {} };
    case 'SandboxLost':
      return { ...envelope, sandboxLost: { host: event.host } };
    case 'DesktopStartRequested':
      return { ...envelope, desktopStartRequested: { width: event.size.width, height: event.size.height } };
    case 'DesktopStarted': {
      const { display, vncPort, devtools, browser } = event;
      return { ...envelope, desktopStarted: { display, vncPort, devtools, browser } };
    }
    case 'DesktopStopped':
      return { ...envelope, desktopStopped: {} };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

const orNull = (value: unknown) => text(value) || null;

function byName<T extends string>(
  names: Record<T, string>,
  values: readonly T[],
  wire: unknown,
): T | undefined {
  return values.find((value) => names[value] === wire);
}

function metadataOf(wire: unknown): Metadata {
  const map = (wire as Wire | null | undefined)?.labels;
  if (typeof map !== 'object' || map === null) return {};
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, text(value)]));
}

const strings = (value: unknown) => (Array.isArray(value) ? value.map(text) : []);

/**
 * A policy message: absent is `undefined`; an egress this code does not know is `null`, and the
 * event is left undecoded (dead-lettered) rather than guessed open or closed.
 */
function networkOf(wire: unknown): NetworkPolicy | null | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const body = wire as Wire;
  const egress = byName(egressNames, egressModes, body.egress);
  return egress ? { egress, allow: strings(body.allow), deny: strings(body.deny) } : null;
}

/** Decoded values come from `decodeValue` (oneofs set, longs and enums as strings). Unknown kinds: undefined. */
export function sandboxEventFromWire(wire: Wire): SandboxEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    sandboxId: text(wire.sandboxId),
    orgId: text(wire.orgId),
    occurredAt: new Date(whole(wire.occurredAtMs)),
  };
  const body = (wire[String(wire.event)] ?? {}) as Wire;
  switch (wire.event) {
    case 'sandboxCreated': {
      const size = byName(sizeNames, sandboxSizes, body.size);
      const network = networkOf(body.network);
      if (!size || network === null) return undefined;
      return {
        ...base,
        type: 'SandboxCreated',
        name: text(body.name),
        size,
        metadata: metadataOf(body.metadata),
        idleTimeoutSeconds: whole(body.idleTimeoutSeconds),
        idempotencyKey: orNull(body.idempotencyKey),
        forkedFrom: orNull(body.forkedFrom),
        hasSecrets: body.hasSecrets === true,
        host: text(body.host) || legacyHostId,
        network: network ?? noNetwork,
        template: orNull(body.template),
      };
    }
    case 'sandboxStarted':
      return { ...base, type: 'SandboxStarted' };
    case 'sandboxStopped': {
      const reason = byName(reasonNames, stopReasons, body.reason);
      return reason ? { ...base, type: 'SandboxStopped', reason } : undefined;
    }
    case 'sandboxResumed':
      return { ...base, type: 'SandboxResumed' };
    case 'sandboxRestarted':
      return { ...base, type: 'SandboxRestarted' };
    case 'sandboxUpdated': {
      const network = networkOf(body.network);
      if (network === null) return undefined;
      return {
        ...base,
        type: 'SandboxUpdated',
        ...(body.metadata ? { metadata: metadataOf(body.metadata) } : {}),
        // A proto3 `optional` field is present only when its synthetic oneof names it.
        ...(body._idleTimeoutSeconds === 'idleTimeoutSeconds'
          ? { idleTimeoutSeconds: whole(body.idleTimeoutSeconds) }
          : {}),
        ...(network === undefined ? {} : { network }),
      };
    }
    case 'sandboxUsed':
      return { ...base, type: 'SandboxUsed' };
    case 'sandboxSecretsSet':
      return { ...base, type: 'SandboxSecretsSet' };
    case 'sandboxDestroyed':
      return { ...base, type: 'SandboxDestroyed' };
    case 'sandboxLost':
      return { ...base, type: 'SandboxLost', host: text(body.host) || legacyHostId };
    case 'desktopStartRequested':
      return {
        ...base,
        type: 'DesktopStartRequested',
        size: { width: whole(body.width), height: whole(body.height) },
      };
    case 'desktopStarted':
      return {
        ...base,
        type: 'DesktopStarted',
        display: text(body.display),
        vncPort: whole(body.vncPort),
        devtools: text(body.devtools),
        browser: text(body.browser),
      };
    case 'desktopStopped':
      return { ...base, type: 'DesktopStopped' };
    default:
      return undefined;
  }
}
