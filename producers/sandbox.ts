import { randomUUID } from 'node:crypto';
import { decide, type SandboxCommand } from '../domain/sandboxes/decide.ts';
import type { SandboxEvent } from '../domain/sandboxes/events.ts';
import { evolve, type Sandbox } from '../domain/sandboxes/sandbox.ts';
import { sandboxEventToWire } from '../schemas/events/sandbox-mapping.ts';
import { type CommandStream, type RecordDeps, recordCommand } from './command-shell.ts';
import type { EventProducer } from './producer.ts';

/** Sandbox events are keyed by sandbox, so one sandbox's history stays in order on one partition. */
export function publishSandboxEvents(producer: EventProducer, events: SandboxEvent[]): Promise<void> {
  return producer.send(
    'sandbox',
    events.map((event) => ({ key: event.sandboxId, value: sandboxEventToWire(event) })),
  );
}

/** A sandbox's state and how many events made it (the read model's `version`). */
export interface VersionedSandbox {
  sandbox: Sandbox;
  version: number;
}

const sandboxStream: CommandStream<SandboxCommand, Sandbox, SandboxEvent> = {
  readModel: 'sandbox',
  decide,
  evolve,
  publish: publishSandboxEvents,
  streamOf: (event) => event.sandboxId,
  idOf: (sandbox) => sandbox.id,
};

/** The fields of a `T` command beyond what every sandbox command carries. */
export type SandboxCommandFields<T extends SandboxCommand['type']> = Omit<
  Extract<SandboxCommand, { type: T }>,
  'eventId' | 'sandboxId' | 'orgId' | 'now' | 'type'
>;

/** A command on `sandbox`'s stream, with a fresh event id and the given time. */
export function sandboxCommand<T extends SandboxCommand['type']>(
  sandbox: Pick<Sandbox, 'id' | 'orgId'>,
  type: T,
  now: Date,
  body?: SandboxCommandFields<T>,
): SandboxCommand {
  return {
    ...body,
    eventId: randomUUID(),
    sandboxId: sandbox.id,
    orgId: sandbox.orgId,
    now,
    type,
  } as SandboxCommand;
}

/**
 * The one way a sandbox's change is recorded (DESIGN.md, "A command is checked, then decided,
 * then recorded"), through the command shell (command-shell.ts). The caller holds whatever makes
 * it the one writer of the sandbox (the host that holds it; the fleet's job for a host gone for good).
 */
export async function recordSandboxCommand(
  deps: RecordDeps,
  command: SandboxCommand,
  loaded: VersionedSandbox | undefined,
): Promise<VersionedSandbox> {
  const recorded = await recordCommand(
    sandboxStream,
    deps,
    command,
    loaded && { state: loaded.sandbox, version: loaded.version },
  );
  return { sandbox: recorded.state, version: recorded.version };
}
