import { asShellLine, isArgumentVector, type RunCommandLine } from '../../domain/runs/command-line.ts';
import { type Actor, type OutputStream, outputStreams, type RunEvent } from '../../domain/runs/events.ts';
import { type SandboxSize, sandboxSizes } from '../../domain/sandboxes/events.ts';
import { legacyHostId } from '../../domain/sandboxes/hosts.ts';
import { type Egress, egressModes, type NetworkPolicy, noNetwork } from '../../domain/sandboxes/network.ts';
import { list, text, type Wire, whole } from './wire.ts';

// RunEvent (domain) <-> orrery.run.v1.RunEvent (protobuf, camelCase as protobufjs reads it).
// Sizes and streams travel by name; an actor is a key id (with its person, or none) or a person.
// A placement without a network policy is one from before sandboxes had a network, read as `none`;
// one without `argv` is one from before argument vectors, its `command` a shell command line.

function actorToWire(actor: Actor): Record<string, unknown> {
  return actor.kind === 'key'
    ? { keyId: actor.keyId, personId: actor.personId ?? '' }
    : { keyId: '', personId: actor.personId };
}

export function runEventToWire(event: RunEvent): Record<string, unknown> {
  const envelope = {
    eventId: event.eventId,
    runId: event.runId,
    orgId: event.orgId,
    occurredAtMs: event.occurredAt.getTime(),
  };
  switch (event.type) {
    case 'RunPlaced':
      return {
        ...envelope,
        runPlaced: {
          name: event.name,
          size: event.size,
          ...commandToWire(event.command),
          envNames: event.envNames,
          files: event.files.map((file) => ({ path: file.path, sizeBytes: file.sizeBytes })),
          ceilingMicrodollars: event.ceilingMicrodollars,
          placedBy: actorToWire(event.placedBy),
          host: event.host,
          network: { egress: event.network.egress, allow: event.network.allow, deny: event.network.deny },
          template: event.template ?? '',
        },
      };
    case 'RunStarted':
      return { ...envelope, runStarted: {} };
    case 'RunOutputAppended':
      return { ...envelope, runOutputAppended: { stream: event.stream, seq: event.seq, text: event.text } };
    case 'RunMetered':
      return { ...envelope, runMetered: { meteredSeconds: event.meteredSeconds } };
    case 'RunResultStored':
      return { ...envelope, runResultStored: { result: event.result } };
    case 'RunResultRefused':
      return { ...envelope, runResultRefused: { reason: event.reason } };
    case 'RunFinished':
      return {
        ...envelope,
        runFinished: {
          ...(event.exitCode === null ? {} : { exitCode: event.exitCode }),
          failure: event.failure ?? '',
          billedSeconds: event.billedSeconds,
        },
      };
    case 'RunStopped':
      return {
        ...envelope,
        runStopped: { stoppedBy: actorToWire(event.stoppedBy), billedSeconds: event.billedSeconds },
      };
    case 'RunCeilingReached':
      return { ...envelope, runCeilingReached: { billedSeconds: event.billedSeconds } };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** A vector travels in `argv`, and quoted in `command` for readers from before (run.proto). */
function commandToWire(command: RunCommandLine): { command: string; argv?: string[] } {
  return { command: asShellLine(command), ...(isArgumentVector(command) ? { argv: command } : {}) };
}

/** No `argv` (every event from before vectors): `command` is a shell command line. */
function commandOf(body: Wire): RunCommandLine {
  const argv = Array.isArray(body.argv) ? body.argv.map(text) : [];
  return argv.length > 0 ? argv : text(body.command);
}

function actorOf(wire: unknown): Actor | undefined {
  const actor = (wire ?? {}) as Wire;
  const keyId = text(actor.keyId);
  const personId = text(actor.personId);
  if (keyId) return { kind: 'key', keyId, personId: personId || null };
  return personId ? { kind: 'person', personId } : undefined;
}

const isSize = (value: unknown): value is SandboxSize => sandboxSizes.includes(value as SandboxSize);
const isEgress = (value: unknown): value is Egress => egressModes.includes(value as Egress);

/** Absent: `none` (see above); an egress this code does not know: null, and the event is left undecoded. */
function networkOf(wire: unknown): NetworkPolicy | null {
  if (typeof wire !== 'object' || wire === null) return noNetwork;
  const body = wire as Wire;
  if (!isEgress(body.egress)) return null;
  const strings = (value: unknown) => (Array.isArray(value) ? value.map(text) : []);
  return { egress: body.egress, allow: strings(body.allow), deny: strings(body.deny) };
}
const isStream = (value: unknown): value is OutputStream => outputStreams.includes(value as OutputStream);

/** Decoded values come from `decodeValue` (oneofs set, longs as strings). Unknown kinds: undefined. */
export function runEventFromWire(wire: Wire): RunEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    runId: text(wire.runId),
    orgId: text(wire.orgId),
    occurredAt: new Date(whole(wire.occurredAtMs)),
  };
  const body = (wire[String(wire.event)] ?? {}) as Wire;
  switch (wire.event) {
    case 'runPlaced': {
      const placedBy = actorOf(body.placedBy);
      const network = networkOf(body.network);
      if (!isSize(body.size) || !placedBy || !network) return undefined;
      const files = list(body.files);
      return {
        ...base,
        type: 'RunPlaced',
        name: text(body.name),
        size: body.size,
        command: commandOf(body),
        envNames: Array.isArray(body.envNames) ? body.envNames.map(text) : [],
        files: files.map((file) => ({ path: text(file.path), sizeBytes: whole(file.sizeBytes) })),
        ceilingMicrodollars: whole(body.ceilingMicrodollars),
        placedBy,
        host: text(body.host) || legacyHostId,
        network,
        template: text(body.template) || null,
      };
    }
    case 'runStarted':
      return { ...base, type: 'RunStarted' };
    case 'runOutputAppended':
      if (!isStream(body.stream)) return undefined;
      return {
        ...base,
        type: 'RunOutputAppended',
        stream: body.stream,
        seq: whole(body.seq),
        text: text(body.text),
      };
    case 'runMetered':
      return { ...base, type: 'RunMetered', meteredSeconds: whole(body.meteredSeconds) };
    case 'runResultStored':
      return { ...base, type: 'RunResultStored', result: text(body.result) };
    case 'runResultRefused':
      return { ...base, type: 'RunResultRefused', reason: text(body.reason) };
    case 'runFinished':
      return {
        ...base,
        type: 'RunFinished',
        // A proto3 `optional` field is present only when its synthetic oneof names it.
        exitCode: body._exitCode === 'exitCode' ? whole(body.exitCode) : null,
        failure: text(body.failure) || null,
        billedSeconds: whole(body.billedSeconds),
      };
    case 'runStopped': {
      const stoppedBy = actorOf(body.stoppedBy);
      if (!stoppedBy) return undefined;
      return { ...base, type: 'RunStopped', stoppedBy, billedSeconds: whole(body.billedSeconds) };
    }
    case 'runCeilingReached':
      return { ...base, type: 'RunCeilingReached', billedSeconds: whole(body.billedSeconds) };
    default:
      return undefined;
  }
}
