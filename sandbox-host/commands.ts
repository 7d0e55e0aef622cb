import { randomBytes } from 'node:crypto';
import { type SandboxCommand, useRecordingIntervalSeconds } from '../domain/sandboxes/decide.ts';
import { newSandboxId, pickDefaultName } from '../domain/sandboxes/names.ts';
import { sameNetwork } from '../domain/sandboxes/network.ts';
import type { CreateSandboxBody, UpdateSandboxBody } from '../domain/sandboxes/requests.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import { requireReady } from '../domain/templates/decide.ts';
import type { Template } from '../domain/templates/template.ts';
import type { Logger } from '../platform/logger.ts';
import type { EventProducer } from '../producers/producer.ts';
import { recordSandboxCommand, type SandboxCommandFields, sandboxCommand } from '../producers/sandbox.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import type { Loaded, SandboxStore } from '../stores/sandboxes.ts';
import type { TemplateStore } from '../stores/templates.ts';
import { type ConvergeDeps, converge } from './converge.ts';
import { NotThisHost } from './errors.ts';
import type { HostRoom } from './room.ts';
import { KeyedLocks, UsesInProgress } from './serial.ts';

// The shell around domain/sandboxes' decider (DESIGN.md, "A command is checked, then decided,
// then recorded"), run by the sandbox host that holds the sandbox (issue 47). Where the state
// lives, and why:
//
// - A command's state is the sandbox's row in the Postgres read model, loaded under the
//   sandbox's in-process lock (serial.ts): the host holding a sandbox is the one process that
//   decides on it, whichever API replica the caller reached. After publishing, the command waits
//   until the projection has applied its events (the row's `version`), so the next command, and
//   the next GET on any replica, see the change: reads come from the read model only.
// - The order is always: decide, publish (Kafka's acknowledgement is the durability point), then
//   drive the runtime (`converge`), then publish what the runtime reports (`SandboxStarted`). If
//   the process dies in between, the read model is ahead of the host, never behind, and
//   recovery.ts converges every sandbox on start: no command is lost.

export interface CommandDeps {
  /** This host's id: what its creates record, and the only sandboxes it acts on. */
  hostId: string;
  store: SandboxStore;
  /** The template read model: a sandbox from a template is checked against it (issue 48). */
  templates: TemplateStore;
  producer: EventProducer;
  runtime: SandboxRuntime;
  room: HostRoom;
  now: () => Date;
  logger: Logger;
  /** How long a command waits for the read model to show its events before answering 503. */
  projectionTimeoutMs: number;
}

/** Why a sandbox stopped being usable, for whoever holds a connection to it (the screen). */
export type Unusable = 'stopped' | 'deleted' | 'lost' | 'restarted' | 'desktop stopped';

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
  execute(command: SandboxCommand, loaded: Loaded | undefined): Promise<Loaded> {
    const { producer, store, projectionTimeoutMs } = this.deps;
    return recordSandboxCommand(
      { producer, readModel: store, timeoutMs: projectionTimeoutMs },
      command,
      loaded,
    );
  }

  /** Builds a command on `sandbox`'s stream with a fresh event id and the clock's time. */
  command<T extends SandboxCommand['type']>(
    sandbox: Pick<Sandbox, 'id' | 'orgId'>,
    type: T,
    body?: SandboxCommandFields<T>,
  ): SandboxCommand {
    return sandboxCommand(sandbox, type, this.deps.now(), body);
  }

  /**
   * Resolves once running, on this host (NoRoom when it has none). A retry with the first
   * attempt's idempotency key resolves with that sandbox, on whichever host holds it: one
   * held elsewhere is answered as it is, and the API asks its own host to bring it up.
   */
  async create(orgId: string, body: CreateSandboxBody): Promise<Sandbox> {
    const { store, hostId } = this.deps;
    const release = await this.deps.room.reserve(body.size);
    try {
      const id = await this.claimingNames(orgId, async () => {
        const key = body.idempotency_key;
        const first = key === undefined ? undefined : await store.byIdempotencyKey(orgId, key);
        if (first) return first.sandbox.id;
        const name = body.name ?? (await pickDefaultName(randomBytes, (n) => store.nameTaken(orgId, n)));
        const sandbox = { id: newSandboxId(randomBytes), orgId };
        const template = body.template === undefined ? null : await this.readyTemplate(orgId, body.template);
        const created = this.command(sandbox, 'CreateSandbox', {
          name,
          nameTaken: body.name !== undefined && (await store.nameTaken(orgId, name)),
          size: body.size,
          metadata: body.metadata,
          idleTimeoutSeconds: body.idle_timeout_seconds,
          idempotencyKey: key ?? null,
          host: hostId,
          network: body.network,
          template: template?.id ?? null,
        });
        await this.execute(created, undefined);
        return sandbox.id;
      });
      const loaded = await store.byId(id);
      if (loaded && loaded.sandbox.host !== hostId) return loaded.sandbox;
      return await this.bringHostInLine(id);
    } finally {
      release();
    }
  }

  /** A running copy with the source's files and metadata, on the source's host (this one); the source is unchanged. */
  async fork(source: Sandbox, name: string | undefined): Promise<Sandbox> {
    const { store } = this.deps;
    this.mustHold(source);
    const release = await this.deps.room.reserve(source.size);
    try {
      const copyId = await this.claimingNames(source.orgId, async () => {
        const copyName =
          name ?? (await pickDefaultName(randomBytes, (n) => store.nameTaken(source.orgId, n)));
        const copyId = newSandboxId(randomBytes);
        const forked = this.command(source, 'ForkSandbox', {
          copyId,
          name: copyName,
          nameTaken: name !== undefined && (await store.nameTaken(source.orgId, copyName)),
        });
        await this.execute(forked, await store.byId(source.id));
        return copyId;
      });
      return await this.bringHostInLine(copyId);
    } finally {
      release();
    }
  }

  /**
   * The ready template a sandbox is made from, as the read model has it (404 unknown, 409 not
   * ready: domain/templates/decide.ts); its files are on the host that made it, which must be this.
   */
  async readyTemplate(orgId: string, reference: string): Promise<Template> {
    const template = requireReady((await this.deps.templates.resolve(orgId, reference))?.template);
    if (template.host !== this.deps.hostId)
      throw new NotThisHost(template.id, template.host, this.deps.hostId);
    return template;
  }

  /** The org's names and idempotency keys, claimed in this process and then across hosts. */
  private claimingNames<T>(orgId: string, task: () => Promise<T>): Promise<T> {
    return this.locks.run(`org:${orgId}`, () => this.deps.store.claimingNames(orgId, task));
  }

  /** A host acts only on the sandboxes it holds: the API routes by the read model's `host`. */
  mustHold(sandbox: Pick<Sandbox, 'id' | 'host'>): void {
    if (sandbox.host !== this.deps.hostId) throw new NotThisHost(sandbox.id, sandbox.host, this.deps.hostId);
  }

  /** stop, resume, restart, destroy and the secrets flag: decide, then bring the host in line. */
  change(
    sandbox: Sandbox,
    type: 'StopSandbox' | 'ResumeSandbox' | 'RestartSandbox' | 'DestroySandbox' | 'SetSecrets',
  ): Promise<Sandbox> {
    if (type === 'RestartSandbox') return this.restart(sandbox);
    return this.onSandbox(sandbox.id, async (loaded) => {
      const changed = await this.execute(this.command(sandbox, type), loaded);
      return this.converge(changed);
    });
  }

  /**
   * Ends every process and starts a fresh init over the same files (issue 48): recorded first
   * (`SandboxRestarted`: starting, its desktop gone), then done by the runtime, which kills from
   * the host (a sandbox at its process limit restarts too), then recorded as started, as a resume
   * is. Converging is not a way to restart (the host cannot tell a restart done from one not), so
   * a restart that failed still converges before it throws: the sandbox is not left starting.
   */
  restart(sandbox: Sandbox): Promise<Sandbox> {
    return this.onSandbox(sandbox.id, async (loaded) => {
      const restarting = await this.execute(this.command(sandbox, 'RestartSandbox'), loaded);
      const failed = await this.deps.runtime.restart(sandbox.id).then(
        () => undefined,
        (error: unknown) => error,
      );
      this.tellUnusable(sandbox.id, 'restarted');
      const converged = await this.converge(restarting);
      if (failed !== undefined) throw failed;
      return converged;
    });
  }

  /**
   * Metadata, the idle timeout and the network policy. A new policy is recorded first, then
   * applied to the runtime by converging (converge.ts), as every change is: running or stopped,
   * the sandbox keeps its processes, and a host that dies in between applies it on recovery.
   */
  update(sandbox: Sandbox, body: UpdateSandboxBody): Promise<Sandbox> {
    return this.onSandbox(sandbox.id, async (loaded) => {
      const changes = {
        metadata: body.metadata,
        idleTimeoutSeconds: body.idle_timeout_seconds,
        network: body.network,
      };
      const updated = await this.execute(this.command(sandbox, 'UpdateSandbox', changes), loaded);
      return sameNetwork(updated.sandbox.network, loaded.sandbox.network) ? updated : this.converge(updated);
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
      this.mustHold(loaded.sandbox);
      return (await task(loaded)).sandbox;
    });
  }

  private async converge(loaded: Loaded): Promise<Loaded> {
    const converged = await converge(this.convergeDeps, loaded);
    const { status } = converged.sandbox;
    if (status === 'stopped' || status === 'deleted' || status === 'lost')
      this.tellUnusable(converged.sandbox.id, status);
    return converged;
  }

  onUnusable(listener: (sandboxId: string, why: Unusable) => void): void {
    this.unusableListeners.push(listener);
  }

  tellUnusable(sandboxId: string, why: Unusable): void {
    for (const listener of this.unusableListeners) listener(sandboxId, why);
  }
}
