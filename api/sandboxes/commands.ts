import { randomBytes, randomUUID } from 'node:crypto';
import { decide, type SandboxCommand, useRecordingIntervalSeconds } from '../../domain/sandboxes/decide.ts';
import { newSandboxId, pickDefaultName } from '../../domain/sandboxes/names.ts';
import type { CreateSandboxBody, UpdateSandboxBody } from '../../domain/sandboxes/requests.ts';
import { evolve, type Sandbox } from '../../domain/sandboxes/sandbox.ts';
import type { Logger } from '../../platform/logger.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSandboxEvents } from '../../producers/sandbox.ts';
import type { SandboxRuntime } from '../../sandbox-runtime/runtime.ts';
import { type ConvergeDeps, converge } from './converge.ts';
import { ReadModelBehind } from './errors.ts';
import { KeyedLocks, UsesInProgress } from './serial.ts';
import type { Loaded, SandboxStore } from './store.ts';

// The shell around domain/sandboxes' decider (DESIGN.md, "A command is checked, then decided,
// then recorded"). Where the state lives, and why:
//
// - A command's state is the sandbox's row in the Postgres read model, loaded under the
//   sandbox's in-process lock (serial.ts). After publishing, the command waits until the
//   projection has applied its events (the row's `version`), then answers from the evolved
//   state. So the next command, and the next GET, see the change: reads come from the read model
//   only, and read-your-writes holds without a second copy of the state in memory.
// - The order is always: decide, publish (Kafka's acknowledgement is the durability point), then
//   drive the runtime (`converge`), then publish what the runtime reports (`SandboxStarted`). If
//   the process dies in between, the read model is ahead of the host, never behind, and
//   recovery.ts converges every sandbox on start: no command is lost.

export interface CommandDeps {
  store: SandboxStore;
  producer: EventProducer;
  runtime: SandboxRuntime;
  now: () => Date;
  logger: Logger;
  /** How long a command waits for the read model to show its events before answering 503. */
  projectionTimeoutMs: number;
}

type Body<T extends SandboxCommand['type']> = Omit<
  Extract<SandboxCommand, { type: T }>,
  'eventId' | 'sandboxId' | 'orgId' | 'now'
>;

/** Why a sandbox stopped being usable, for whoever holds a connection to it (the screen). */
export type Unusable = 'stopped' | 'deleted' | 'desktop stopped';

export class SandboxCommands {
  readonly locks = new KeyedLocks();
  readonly uses = new UsesInProgress();
  private readonly unusableListeners: ((sandboxId: string, why: Unusable) => void)[] = [];

  private readonly convergeDeps: ConvergeDeps;

  constructor(readonly deps: CommandDeps) {
    this.convergeDeps = {
      runtime: deps.runtime,
      logger: deps.logger,
      reportStarted: (loaded) => this.execute(this.command(loaded.sandbox, 'ReportStarted'), loaded),
    };
  }

  /** Decides `command` on `loaded`, publishes, waits for the read model; call under the lock of `command.sandboxId`. */
  async execute(command: SandboxCommand, loaded: Loaded | undefined): Promise<Loaded> {
    const events = decide(command, loaded?.sandbox);
    const [first] = events;
    if (!first) {
      if (!loaded) throw new Error(`${command.type} decided nothing for an unknown sandbox`);
      return loaded;
    }
    await publishSandboxEvents(this.deps.producer, events);
    // A fork is decided on its source; its event starts the copy's stream.
    const base = first.sandboxId === loaded?.sandbox.id ? loaded : undefined;
    const sandbox = events.reduce(evolve, base?.sandbox);
    if (!sandbox) throw new Error(`${command.type} left no sandbox`);
    const version = (base?.version ?? 0) + events.length;
    if (!(await this.deps.store.waitForVersion(first.sandboxId, version, this.deps.projectionTimeoutMs)))
      throw new ReadModelBehind(first.sandboxId);
    return { sandbox, version };
  }

  /** Builds a command on `sandbox`'s stream with a fresh event id and the clock's time. */
  command<T extends SandboxCommand['type']>(
    sandbox: Pick<Sandbox, 'id' | 'orgId'>,
    type: T,
    body?: Omit<Body<T>, 'type'>,
  ): SandboxCommand {
    const meta = { eventId: randomUUID(), sandboxId: sandbox.id, orgId: sandbox.orgId, now: this.deps.now() };
    return { ...meta, ...body, type } as SandboxCommand;
  }

  /** Resolves once running. A retry with the first attempt's idempotency key resolves with its sandbox. */
  async create(orgId: string, body: CreateSandboxBody): Promise<Sandbox> {
    const { store } = this.deps;
    const id = await this.locks.run(`org:${orgId}`, async () => {
      const key = body.idempotency_key;
      const first = key === undefined ? undefined : await store.byIdempotencyKey(orgId, key);
      if (first) return first.sandbox.id;
      const name = body.name ?? (await pickDefaultName(randomBytes, (n) => store.nameTaken(orgId, n)));
      const sandbox = { id: newSandboxId(randomBytes), orgId };
      const created = this.command(sandbox, 'CreateSandbox', {
        name,
        nameTaken: body.name !== undefined && (await store.nameTaken(orgId, name)),
        size: body.size,
        metadata: body.metadata,
        idleTimeoutSeconds: body.idle_timeout_seconds,
        idempotencyKey: key ?? null,
      });
      await this.execute(created, undefined);
      return sandbox.id;
    });
    return this.bringHostInLine(id);
  }

  /** A running copy with the source's files and metadata; the source is unchanged. */
  async fork(source: Sandbox, name: string | undefined): Promise<Sandbox> {
    const { store } = this.deps;
    const copyId = await this.locks.run(`org:${source.orgId}`, async () => {
      const copyName = name ?? (await pickDefaultName(randomBytes, (n) => store.nameTaken(source.orgId, n)));
      const copyId = newSandboxId(randomBytes);
      const forked = this.command(source, 'ForkSandbox', {
        copyId,
        name: copyName,
        nameTaken: name !== undefined && (await store.nameTaken(source.orgId, copyName)),
      });
      await this.execute(forked, await store.byId(source.id));
      return copyId;
    });
    return this.bringHostInLine(copyId);
  }

  /** stop, resume, destroy, update and the secrets flag: decide, then bring the host in line. */
  change(
    sandbox: Sandbox,
    type: 'StopSandbox' | 'ResumeSandbox' | 'DestroySandbox' | 'SetSecrets',
  ): Promise<Sandbox> {
    return this.onSandbox(sandbox.id, async (loaded) => {
      const changed = await this.execute(this.command(sandbox, type), loaded);
      return this.converge(changed);
    });
  }

  update(sandbox: Sandbox, body: UpdateSandboxBody): Promise<Sandbox> {
    return this.onSandbox(sandbox.id, async (loaded) => {
      const changes = { metadata: body.metadata, idleTimeoutSeconds: body.idle_timeout_seconds };
      return this.execute(this.command(sandbox, 'UpdateSandbox', changes), loaded);
    });
  }

  /** The idle-timeout job's command: stops the sandbox if its timeout has elapsed. */
  expireIdle(sandboxId: string): Promise<Sandbox> {
    return this.onSandbox(sandboxId, async (loaded) => {
      const expired = await this.execute(this.command(loaded.sandbox, 'ExpireIdle'), loaded);
      return expired.version === loaded.version ? expired : this.converge(expired);
    });
  }

  /** Brings the host in line with the read model (after a crash, or a first attempt cut short). */
  bringHostInLine(sandboxId: string): Promise<Sandbox> {
    return this.onSandbox(sandboxId, (loaded) => this.converge(loaded));
  }

  /**
   * Runs `task` as a use of a running sandbox (exec, files, desktop): recorded for the idle
   * timeout before (and after, if it took longer than the recording interval), and shielded from
   * the idle-timeout job while in progress.
   */
  async use<T>(sandbox: Sandbox, task: () => Promise<T>): Promise<T> {
    return this.uses.during(sandbox.id, async () => {
      await this.recordUse(sandbox);
      const started = Date.now();
      const result = await task();
      if (Date.now() - started >= useRecordingIntervalSeconds * 1000) await this.recordUse(sandbox);
      return result;
    });
  }

  private async recordUse(sandbox: Sandbox): Promise<void> {
    const since = this.deps.now().getTime() - sandbox.lastUsedAt.getTime();
    if (since < useRecordingIntervalSeconds * 1000) return;
    await this.onSandbox(sandbox.id, async (loaded) => {
      return this.execute(this.command(sandbox, 'RecordUse'), loaded);
    });
  }

  /** Runs `task` under the sandbox's lock with its state freshly loaded; answers the state it leaves. */
  onSandbox(sandboxId: string, task: (loaded: Loaded) => Promise<Loaded>): Promise<Sandbox> {
    return this.locks.run(sandboxId, async () => {
      const loaded = await this.deps.store.byId(sandboxId);
      if (!loaded) throw new Error(`sandbox ${sandboxId} is not in the read model`);
      return (await task(loaded)).sandbox;
    });
  }

  private async converge(loaded: Loaded): Promise<Loaded> {
    const converged = await converge(this.convergeDeps, loaded);
    const { status } = converged.sandbox;
    if (status === 'stopped' || status === 'deleted') this.tellUnusable(converged.sandbox.id, status);
    return converged;
  }

  onUnusable(listener: (sandboxId: string, why: Unusable) => void): void {
    this.unusableListeners.push(listener);
  }

  tellUnusable(sandboxId: string, why: Unusable): void {
    for (const listener of this.unusableListeners) listener(sandboxId, why);
  }
}
