import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Duplex, Readable } from 'node:stream';
import type { RunCommandLine } from '../domain/runs/command-line.ts';
import { invalidRequest, SandboxError } from '../domain/sandboxes/errors.ts';
import type { SandboxSize } from '../domain/sandboxes/events.ts';
import { defaultNetwork, type NetworkPolicy } from '../domain/sandboxes/network.ts';
import type { Config } from '../platform/config.ts';
import { type CgroupMoves, favorCgroupMoves } from './cgroup-moves.ts';
import { canFreeze, createCgroups, discoverCgroups, planCgroups } from './cgroups.ts';
import { builtConfinement, confinementFiles } from './confine.ts';
import {
  type ExecOptions,
  type ExecOutcome,
  runExec,
  type StreamingExec,
  type StreamingExecOptions,
  startExec,
} from './exec.ts';
import { collectSized } from './file-streams.ts';
import {
  type OpenedFile,
  openSandboxFile,
  type WriteOptions,
  type Written,
  writeSandboxFileFrom,
} from './files.ts';
import { setFrozen } from './freeze.ts';
import { hostProgram } from './host.ts';
import {
  boot,
  destroySandbox,
  ensureEgress,
  ensureProcesses,
  type Log,
  type RecoveryOutcome,
  recoverSandbox,
  type SandboxStatus,
  type Steps,
  saved,
  startProcesses,
  statusOf,
  whilePaused,
} from './lifecycle.ts';
import { sizeLimits } from './limits.ts';
import { changeEgress, writeResolvConf } from './network.ts';
import { connectPort, forwardPort } from './ports.ts';
import { defaultProcViewsDir, type ProcViews, procViewsOf } from './proc-views.ts';
import { initAlive } from './process-tree.ts';
import { builtRootfs, defaultRootfsCache } from './rootfs.ts';
import { RunawayWatch, type RunawayWatchOptions } from './runaway.ts';
import {
  copyFilesystem,
  copyLayer,
  createFilesystem,
  type DiskLimit,
  type DiskPlan,
  diskImagesRefused,
  type FilesystemMode,
  type Layout,
  layoutOf,
  overlayWorks,
} from './sandbox-fs.ts';
import { readRecord, recordedIds, type SandboxRecord } from './state.ts';
import {
  listTemplates,
  readTemplate,
  removeTemplate,
  type TemplateRecord,
  templateLayout,
  writeTemplate,
} from './template-store.ts';
import { freeRange, type IdRange, idmapRefused } from './user-namespace.ts';

export type { RecoveryOutcome, SandboxState, SandboxStatus } from './lifecycle.ts';

// The sandbox runtime that owns processes on a host: the I/O edge the API calls once it has
// decided (domain/sandboxes). It knows nothing of Kafka or Postgres; its state is the folder
// `ORRERY_SANDBOX_DIR` (one record per sandbox) and the kernel's (/proc, cgroups). One runtime
// per state folder: operations on one sandbox are serialized inside the process only.
// Refusals are the domain's SandboxError (`not_found`, `not_running`, `invalid_request`), so the
// HTTP layer maps them; anything else thrown is a host failure (500).

export interface RuntimeOptions {
  /** The state folder (resolved against the working directory). */
  dir: string;
  rootfsCache?: string;
  log?: Log;
  /** Force a fallback: for hosts where the probe is wrong, and for tests of the fallbacks. */
  freezer?: 'auto' | 'signals';
  filesystem?: 'auto' | 'copy';
  /** The resolvers sandboxes' DNS goes to (ORRERY_SANDBOX_DNS); the host's own when absent. */
  dns?: readonly string[];
  /** `unlimited`: layers without a disk quota, as where the host cannot mount an image. */
  disk?: 'auto' | 'unlimited';
  /** Every sandbox's disk quota in MiB, whatever its size's (limits.ts): for tests that fill one. */
  diskMiB?: number;
  /** `off` starts sandboxes unconfined (all capabilities, no filter): only to measure the cost (bench/sandbox-filter.ts). */
  confinement?: 'docker-default' | 'off';
  /** `off`: sandboxes see the kernel's /proc (the host's memory, cpus, uptime), as where lxcfs cannot run. */
  procViews?: 'auto' | 'off';
  /** The folder of the host's lxcfs (proc-views.ts), shared by every runtime on the host. */
  procViewsDir?: string;
  /** `shared`: every sandbox in the one id range, as where the host refuses idmapped mounts. */
  idRanges?: 'own' | 'shared';
}

interface Host {
  rootfs: string;
  confinement: string;
  filesystem: FilesystemMode;
  /** Why layers get no disk quota on this host (sandbox-fs.ts), or undefined: they do. */
  diskRefused: string | undefined;
  cgroups: ReturnType<typeof discoverCgroups>;
  /** Whether moving a process into a sandbox's cgroups skips the kernel's grace period (cgroup-moves.ts). */
  cgroupMoves: CgroupMoves;
  /** Whether lxcfs served sandboxes' /proc views when the runtime prepared (each init asks again). */
  procViews: ProcViews;
  /** The helper that shows each sandbox its files in its own id range, or why ranges are shared. */
  idmap: { helper: string } | { refused: string };
}

const templatesNeedOverlay =
  'this host cannot stack a template under a sandbox (overlayfs is refused here: sandboxes are full copies of the base)';

/** Ids name folders, cgroups and the hostname (at most 64 bytes). */
const sandboxIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

export class SandboxRuntime {
  readonly dir: string;
  private readonly group: string;
  private readonly log: Log;
  /** What the lifecycle's steps take: the log, and where sandboxes' DNS goes (network.ts). */
  private readonly steps: Steps;
  private host: Promise<Host> | undefined;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: RuntimeOptions) {
    this.dir = resolve(options.dir);
    this.group = `orrery-${createHash('sha256').update(this.dir).digest('hex').slice(0, 8)}`;
    this.log = options.log ?? (() => {});
    const dns =
      options.dns === undefined ? {} : { dns: options.dns, resolvConf: join(this.dir, 'resolv.conf') };
    const viewsDir = options.procViewsDir ?? defaultProcViewsDir;
    const procViews =
      options.procViews === 'off'
        ? async (): Promise<ProcViews> => ({ applied: false, reason: "turned off by the runtime's options" })
        : procViewsOf(viewsDir);
    this.steps = { log: this.log, egress: dns, procViews };
  }

  static fromConfig(config: Config, options: Omit<RuntimeOptions, 'dir'> = {}): SandboxRuntime {
    const dns = config.fleet.host.sandboxDns;
    return new SandboxRuntime({ ...(dns === undefined ? {} : { dns }), ...options, dir: config.sandboxDir });
  }

  /**
   * Finds the base filesystem and the host programs (`npm run stack -- start` installed and built
   * them: rootfs.ts, ensureRootfs) and probes the host. Idempotent; installs nothing.
   */
  prepare(): Promise<Host> {
    this.host ??= (async () => {
      if (process.getuid?.() !== 0) throw new Error('the sandbox runtime runs as root (it maps user ids)');
      const cache = this.options.rootfsCache ?? defaultRootfsCache();
      const rootfs = builtRootfs(cache);
      const confinement = builtConfinement(cache);
      for (const program of ['bwrap', 'nsenter', 'unshare']) hostProgram(program);
      for (const program of ['slirp4netns', 'nft', 'ip']) hostProgram(program);
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const { dns, resolvConf } = this.steps.egress;
      if (dns !== undefined && resolvConf !== undefined) writeResolvConf(resolvConf, dns);
      const overlay = this.options.filesystem !== 'copy' && overlayWorks(this.dir);
      const diskRefused =
        this.options.disk === 'unlimited'
          ? "turned off by the runtime's options"
          : diskImagesRefused(this.dir);
      const cgroupMoves = await favorCgroupMoves();
      if (!cgroupMoves.favored)
        this.log(`a fork bomb in a sandbox will slow the host's forks: ${cgroupMoves.reason}`);
      const procViews = await this.steps.procViews();
      if (!procViews.applied) this.log(`sandboxes will see the host's /proc: ${procViews.reason}`);
      const helper = join(confinement, confinementFiles.idmapMount);
      const idmapRefusal =
        this.options.idRanges === 'shared'
          ? "turned off by the runtime's options"
          : await idmapRefused(helper, [rootfs, this.dir], this.dir);
      if (idmapRefusal !== undefined) this.log(`sandboxes will share one id range: ${idmapRefusal}`);
      return {
        rootfs,
        confinement,
        filesystem: overlay ? 'overlay' : 'copy',
        diskRefused,
        cgroups: discoverCgroups(),
        cgroupMoves,
        procViews,
        idmap: idmapRefusal === undefined ? { helper } : { refused: idmapRefusal },
      };
    })();
    return this.host;
  }

  /** Resolves once the sandbox runs; creating an existing sandbox answers its status. */
  create(
    id: string,
    {
      size = 'small',
      network = defaultNetwork,
      template,
    }: { size?: SandboxSize; network?: NetworkPolicy; template?: string } = {},
  ): Promise<SandboxStatus> {
    const layout = this.layout(id);
    return this.serial(id, async () => {
      const existing = readRecord(layout);
      if (existing && !existing.destroying)
        return statusOf(await ensureProcesses(existing, layout, this.steps));
      if (existing) await destroySandbox(existing, layout, this.steps);
      const host = await this.prepare();
      const from = template === undefined ? undefined : this.readyTemplate(template, host);
      const rootfs = from?.base ?? host.rootfs;
      const disk = await createFilesystem(layout, host.filesystem, rootfs, this.diskPlan(size, host));
      const fresh = this.newRecord(id, size, null, host, disk, network);
      const record =
        from === undefined ? fresh : { ...fresh, rootfs, template: from.id, layers: from.layers };
      return statusOf(await boot(record, layout, this.steps));
    });
  }

  /**
   * A template of the sandbox's files as they are now (template-store.ts): its own changes as a
   * new layer over its template's layers, copied with the sandbox frozen. `source` says what the
   * template was made from (a recipe's build passes its own).
   */
  snapshot(
    id: string,
    templateId: string,
    source: TemplateRecord['source'] = { kind: 'snapshot', sandbox: id },
  ): Promise<TemplateRecord> {
    this.layout(templateId); // the same rule for ids
    return this.serial(id, async () => {
      const host = await this.prepare();
      if (host.filesystem !== 'overlay') throw invalidRequest('template', templatesNeedOverlay);
      // A recipe's build (template-build.ts) marks its template `building` before it gets here.
      if ((readTemplate(this.dir, templateId)?.status ?? 'building') !== 'building')
        throw invalidRequest('template', `template ${templateId} exists already`);
      const record = this.mustGet(id);
      const target = templateLayout(this.dir, templateId);
      const template: TemplateRecord = {
        id: templateId,
        createdAt: new Date().toISOString(),
        status: 'building',
        base: record.rootfs,
        source,
        layers: [target.layer, ...record.layers],
        failure: null,
      };
      writeTemplate(this.dir, template);
      try {
        await whilePaused(record, () => copyLayer(this.layout(id), record, target.layer));
      } catch (error) {
        removeTemplate(this.dir, templateId);
        throw error;
      }
      this.log(`template ${templateId}: made from sandbox ${id}`);
      return writeTemplate(this.dir, { ...template, status: 'ready' });
    });
  }

  templates(): TemplateRecord[] {
    return listTemplates(this.dir);
  }

  template(id: string): TemplateRecord | undefined {
    this.layout(id);
    return readTemplate(this.dir, id);
  }

  /** Deletes a template no sandbox and no other template stands on; a missing one is gone already. */
  deleteTemplate(id: string): Promise<void> {
    this.layout(id);
    return this.serial(`template:${id}`, async () => {
      const template = readTemplate(this.dir, id);
      if (template === undefined) return;
      const own = templateLayout(this.dir, id).layer;
      const users = [
        ...this.ids().filter((sandbox) => readRecord(this.layout(sandbox))?.layers.includes(own)),
        ...listTemplates(this.dir)
          .filter((other) => other.id !== id && other.layers.includes(own))
          .map((other) => `template ${other.id}`),
      ];
      if (users.length > 0)
        throw new SandboxError('template_in_use', {
          message: `Template ${id} is what ${users.join(', ')} stand${users.length === 1 ? 's' : ''} on: destroy or delete ${users.length === 1 ? 'it' : 'them'} first.`,
        });
      removeTemplate(this.dir, id);
    });
  }

  /** A ready template of this host, or the refusal naming why it cannot be used. */
  private readyTemplate(id: string, host: Host): TemplateRecord {
    if (host.filesystem !== 'overlay') throw invalidRequest('template', templatesNeedOverlay);
    const template = readTemplate(this.dir, id);
    if (template === undefined) throw invalidRequest('template', `no template ${id} on this host`);
    if (template.status !== 'ready')
      throw new SandboxError('template_not_ready', {
        message: `Template ${id} is ${template.status}${template.status === 'building' ? ': retry once it is ready' : ''}.`,
      });
    return template;
  }

  /** A running copy with the same files (its own fresh processes); the source is unchanged. */
  fork(sourceId: string, newId: string): Promise<SandboxStatus> {
    const layout = this.layout(newId);
    if (sourceId === newId) throw invalidRequest('id', "a fork needs a new id, not its source's");
    return this.serial(newId, async () => {
      const existing = readRecord(layout);
      if (existing && !existing.destroying)
        return statusOf(await ensureProcesses(existing, layout, this.steps));
      const host = await this.prepare();
      const [source, disk] = await this.serial(sourceId, async () => {
        const record = this.mustGet(sourceId);
        // Frozen while copied, so the copy is one moment of the source, not a blur of writes.
        const copied = await whilePaused(record, () => copyFilesystem(this.layout(sourceId), layout, record));
        return [record, copied] as const;
      });
      const fresh = this.newRecord(newId, source.size, sourceId, host, disk, source.network);
      const { filesystem, rootfs, template, layers } = source;
      const record = { ...fresh, filesystem, rootfs, template, layers };
      return statusOf(await boot(record, layout, this.steps));
    });
  }

  /** Freezes every process of the sandbox; its memory and files are kept. */
  stop(id: string): Promise<SandboxStatus> {
    return this.serial(id, async () => {
      const record = this.mustGet(id);
      if (initAlive(record)) await setFrozen(record, true);
      return statusOf(saved(this.layout(id), { ...record, desired: 'stopped' }));
    });
  }

  /** Thaws the sandbox; if its processes are gone, starts a fresh init over its files. */
  resume(id: string): Promise<SandboxStatus> {
    return this.serial(id, async () => {
      const layout = this.layout(id);
      const record = saved(layout, { ...this.mustGet(id), desired: 'running' });
      if (!initAlive(record)) return statusOf(await startProcesses(record, layout, this.steps));
      await setFrozen(record, false);
      return statusOf(await ensureEgress(record, layout, this.steps));
    });
  }

  /**
   * Ends every process of a running sandbox and starts a fresh init over its files, like a machine
   * after a reboot: the step recovery takes for a dead init (lifecycle.ts startProcesses). The
   * host ends them through the cgroups, so a sandbox held at its process limit (a fork bomb)
   * restarts too. A stopped sandbox is refused with `not_running`, as exec is.
   */
  restart(id: string): Promise<SandboxStatus> {
    return this.serial(id, async () => {
      const record = this.mustGet(id);
      if (record.desired === 'stopped') throw new SandboxError('not_running');
      const restarted = await startProcesses(record, this.layout(id), this.steps);
      this.log(`sandbox ${id}: restarted`);
      return statusOf(restarted);
    });
  }

  /**
   * A new network policy (domain/sandboxes/network.ts): the firewall changes at once; slirp ends
   * for `none`, or starts for `open` (on resume, for a stopped sandbox). A sandbox whose processes
   * are gone gets it when they start again.
   */
  setNetwork(id: string, network: NetworkPolicy): Promise<SandboxStatus> {
    return this.serial(id, async () => {
      const layout = this.layout(id);
      const record = saved(layout, { ...this.mustGet(id), network });
      if (!initAlive(record)) return statusOf(record);
      const running = record.desired === 'running';
      return statusOf(
        saved(layout, { ...record, egress: await changeEgress(record, network, this.steps.egress, running) }),
      );
    });
  }

  /** Kills every process and removes the files and cgroups; a missing sandbox is already gone. */
  destroy(id: string): Promise<void> {
    const layout = this.layout(id);
    return this.serial(id, async () => {
      const record = readRecord(layout);
      if (record) await destroySandbox(record, layout, this.steps);
    });
  }

  async exec(id: string, command: string, options: ExecOptions = {}): Promise<ExecOutcome> {
    return runExec(await this.running(id), command, options);
  }

  /** Starts a command whose output comes as it is printed, to run as long as it runs (runs, issue 16). */
  async startExec(
    id: string,
    command: RunCommandLine,
    options: StreamingExecOptions,
  ): Promise<StreamingExec> {
    return startExec(await this.running(id), command, options);
  }

  /**
   * Resolves once the file is known to exist, be a regular file and hold at most 64 MiB; `bytes`
   * then streams exactly `sizeBytes` bytes, as fast as the consumer takes them (files.ts).
   */
  async openFile(id: string, path: string): Promise<OpenedFile> {
    return openSandboxFile(await this.running(id), path);
  }

  /** Streams `source` into the file, which changes only once the whole body arrived (files.ts). */
  async writeFileFrom(
    id: string,
    path: string,
    source: Readable,
    options: WriteOptions = {},
  ): Promise<Written> {
    return writeSandboxFileFrom(await this.running(id), path, source, options);
  }

  async readFile(id: string, path: string): Promise<Uint8Array> {
    const { sizeBytes, bytes } = await this.openFile(id, path);
    return collectSized(bytes, sizeBytes);
  }

  async writeFile(id: string, path: string, contents: Uint8Array | string): Promise<Written> {
    const bytes = typeof contents === 'string' ? new TextEncoder().encode(contents) : contents;
    return this.writeFileFrom(id, path, Readable.from([bytes]), { declaredBytes: bytes.length });
  }

  /** A byte stream to 127.0.0.1:<port> inside the sandbox (ports.ts). */
  async connect(id: string, port: number): Promise<Duplex> {
    return connectPort(await this.running(id), port);
  }

  /** A host port on 127.0.0.1 forwarding to `port` inside the sandbox, until `close()`. */
  forward(id: string, port: number) {
    return forwardPort(() => this.connect(id, port));
  }

  async status(id: string): Promise<SandboxStatus> {
    return statusOf(this.mustGet(id));
  }

  async list(): Promise<SandboxStatus[]> {
    return this.ids().flatMap((id) => {
      const record = readRecord(this.layout(id));
      return record && !record.destroying ? [statusOf(record)] : [];
    });
  }

  /** After a restart of the API process (lifecycle.ts `recoverSandbox` says what happens). */
  async recover(): Promise<Record<string, RecoveryOutcome>> {
    const outcomes: Record<string, RecoveryOutcome> = {};
    for (const id of this.ids()) {
      const layout = this.layout(id);
      outcomes[id] = await this.serial(id, async () => {
        const record = readRecord(layout);
        return record ? recoverSandbox(record, layout, this.steps) : 'destroyed';
      });
    }
    return outcomes;
  }

  /** A new sandbox's disk quota: its size's (limits.ts), or the runtime's `diskMiB`. */
  private diskPlan(size: SandboxSize, host: Host): DiskPlan {
    if (host.diskRefused !== undefined) return { refused: host.diskRefused };
    return { bytes: (this.options.diskMiB ?? sizeLimits[size].diskMiB) * 1024 * 1024 };
  }

  private newRecord(
    id: string,
    size: SandboxSize,
    forkedFrom: string | null,
    host: Host,
    disk: DiskLimit,
    network: NetworkPolicy,
  ): SandboxRecord {
    const cgroups = planCgroups(host.cgroups, this.group, id);
    return {
      id,
      size,
      createdAt: new Date().toISOString(),
      forkedFrom,
      filesystem: host.filesystem,
      rootfs: host.rootfs,
      template: null,
      layers: [],
      disk,
      confinement: this.options.confinement === 'off' ? null : host.confinement,
      idRange: this.newIdRange(host),
      cgroups,
      limits: createCgroups(cgroups, sizeLimits[size]),
      procViews: host.procViews, // until its init starts (lifecycle.ts startProcesses)
      freezer: this.options.freezer !== 'signals' && canFreeze(cgroups) ? 'cgroup' : 'signals',
      init: null,
      network,
      egress: null,
      diskIo: { applied: false, reason: 'its init has not started' },
      desired: 'running',
      destroying: false,
    };
  }

  /**
   * A new sandbox's own id range (user-namespace.ts): the first that no sandbox of this runtime
   * holds, looked for from a place of this state folder's. Its record is written before anything
   * else can run (boot), so two creates never take the same.
   */
  private newIdRange(host: Host): IdRange {
    if ('refused' in host.idmap) return { applied: false, reason: host.idmap.refused };
    const taken = this.ids().flatMap((id) => {
      const range = readRecord(this.layout(id))?.idRange;
      return range?.applied ? [range.outside] : [];
    });
    const start = Number.parseInt(this.group.slice('orrery-'.length), 16);
    return { applied: true, outside: freeRange(taken, start), idmapMount: host.idmap.helper };
  }

  /**
   * Looks every `intervalMs` for sandboxes whose task limit refuses forks and runs them at idle
   * CPU priority meanwhile (runaway.ts). The sandbox host starts it with the runtime.
   */
  watchRunaways(options: RunawayWatchOptions & { intervalMs?: number } = {}): {
    watch: RunawayWatch;
    stop(): void;
  } {
    const watch = new RunawayWatch({ log: this.log, ...options });
    const running = (id: string): SandboxRecord[] => {
      try {
        const record = readRecord(this.layout(id));
        return record && !record.destroying && record.desired === 'running' && record.init ? [record] : [];
      } catch {
        return []; // gone meanwhile
      }
    };
    const timer = setInterval(() => watch.look(this.ids().flatMap(running)), options.intervalMs ?? 250);
    timer.unref();
    return { watch, stop: () => clearInterval(timer) };
  }

  /** The record of a sandbox that must run now: `not_running` when stopped, restarted if it died. */
  private async running(id: string): Promise<SandboxRecord> {
    const record = this.mustGet(id);
    if (record.desired === 'stopped') throw new SandboxError('not_running');
    if (initAlive(record)) return record;
    return this.serial(id, () => ensureProcesses(this.mustGet(id), this.layout(id), this.steps));
  }

  /** The sandboxes on disk (a folder that is not one, by its name, is not ours to touch). */
  private ids(): string[] {
    return recordedIds(this.dir).filter((id) => sandboxIdPattern.test(id));
  }

  private mustGet(id: string): SandboxRecord {
    const record = readRecord(this.layout(id));
    if (!record || record.destroying) throw new SandboxError('not_found');
    return record;
  }

  private layout(id: string): Layout {
    if (!sandboxIdPattern.test(id)) {
      throw invalidRequest(
        'id',
        'a sandbox id is 1 to 63 letters, digits, `_` and `-`, starting with one of the first two',
      );
    }
    return layoutOf(this.dir, id);
  }

  /** Runs `task` after every earlier task on the same sandbox has finished. */
  private serial<T>(id: string, task: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(id) ?? Promise.resolve()).then(task, task);
    const settled: Promise<void> = next.then(
      () => this.forget(id, settled),
      () => this.forget(id, settled),
    );
    this.queues.set(id, settled);
    return next;
  }

  private forget(id: string, settled: Promise<void>): void {
    if (this.queues.get(id) === settled) this.queues.delete(id);
  }
}
