import { randomUUID } from 'node:crypto';
import { decide, type SandboxCommand } from '../domain/sandboxes/decide.ts';
import type { SandboxEvent } from '../domain/sandboxes/events.ts';
import { evolve, type Sandbox } from '../domain/sandboxes/sandbox.ts';
import { sandboxEventToWire } from '../schemas/events/sandbox-mapping.ts';
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

/** The read model did not show a published change in time (are the consumers running?). */
export class ReadModelBehind extends Error {
  constructor(id: string, readModel = 'sandbox') {
    super(`the ${readModel} read model did not show the change to ${id} in time`);
    this.name = 'ReadModelBehind';
  }
}

export interface RecordDeps {
  producer: EventProducer;
  /** The read model (stores/sandboxes.ts): true once it has applied `version` events to the sandbox. */
  readModel: { waitForVersion(sandboxId: string, version: number, timeoutMs: number): Promise<boolean> };
  /** How long to wait for it before ReadModelBehind (503). */
  timeoutMs: number;
}

export type CommandBody<T extends SandboxCommand['type']> = Omit<
  Extract<SandboxCommand, { type: T }>,
  'eventId' | 'sandboxId' | 'orgId' | 'now' | 'type'
>;

/** A command on `sandbox`'s stream, with a fresh event id and the given time. */
export function sandboxCommand<T extends SandboxCommand['type']>(
  sandbox: Pick<Sandbox, 'id' | 'orgId'>,
  type: T,
  now: Date,
  body?: CommandBody<T>,
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
 * then recorded"): decide `command` on `loaded`, publish what it decides, wait until the read
 * model shows it, and answer the evolved state. The caller holds whatever makes it the one writer
 * of the sandbox (the host that holds it; the fleet's job for a host gone for good).
 */
export async function recordSandboxCommand(
  deps: RecordDeps,
  command: SandboxCommand,
  loaded: VersionedSandbox | undefined,
): Promise<VersionedSandbox> {
  const events = decide(command, loaded?.sandbox);
  const [first] = events;
  if (!first) {
    if (!loaded) throw new Error(`${command.type} decided nothing for an unknown sandbox`);
    return loaded;
  }
  await publishSandboxEvents(deps.producer, events);
  // A fork is decided on its source; its event starts the copy's stream.
  const base = first.sandboxId === loaded?.sandbox.id ? loaded : undefined;
  const sandbox = events.reduce(evolve, base?.sandbox);
  if (!sandbox) throw new Error(`${command.type} left no sandbox`);
  const version = (base?.version ?? 0) + events.length;
  if (!(await deps.readModel.waitForVersion(first.sandboxId, version, deps.timeoutMs)))
    throw new ReadModelBehind(first.sandboxId);
  return { sandbox, version };
}
