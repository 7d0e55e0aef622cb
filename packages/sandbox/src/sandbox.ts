import type { ExecResult, NetworkOptions, NetworkPolicy, SandboxData, TokenGrant } from './api-types.js';
import { bodyOf, type Connection } from './connection.js';
import { Desktop } from './desktop.js';
import type { Ability } from './desktop-types.js';
import { SandboxFiles } from './sandbox-files.js';
import { Template } from './templates.js';

// One sandbox (spec 002, "`Sandbox`"): its properties come from the latest answer about it; each
// method that changes it resolves with this same object, updated.

export interface ExecOptions {
  /** The working directory, an absolute path; `/root` by default. */
  cwd?: string;
  env?: Record<string, string>;
  /** Up to 600; 60 by default. */
  timeoutSeconds?: number;
}

export interface CreateTokenOptions {
  abilities: [Ability];
  /** 60 to 3600 seconds; 900 by default. */
  expiresIn?: number;
  /** Up to 10 browser origins (`https://app.example.com`); none refuses every browser. */
  origins?: string[];
}

export interface UpdateOptions {
  /** Replaces every key; `{}` removes them all. */
  metadata?: Record<string, string>;
  /** 60 to 604800, or 0 for never. */
  idleTimeoutSeconds?: number;
  /** Replaces the whole policy (fields left out take their defaults); applied at once, running or stopped. */
  network?: NetworkOptions;
}

export class Sandbox {
  readonly desktop: Desktop;
  readonly files: SandboxFiles;
  private latest: SandboxData;

  constructor(
    private readonly connection: Connection,
    data: SandboxData,
  ) {
    this.latest = data;
    this.desktop = new Desktop(connection, data.id);
    this.files = new SandboxFiles(connection, data.id);
  }

  /** The full sandbox object of the latest answer. */
  get data(): SandboxData {
    return this.latest;
  }
  get id(): string {
    return this.latest.id;
  }
  get name(): string {
    return this.latest.name;
  }
  get status(): SandboxData['status'] {
    return this.latest.status;
  }
  get metadata(): Record<string, string> {
    return this.latest.metadata;
  }
  /** The id of the template it was made from, or null: the base. */
  get template(): string | null {
    return this.latest.template;
  }
  /** What it may reach: `{ egress, allow, deny }`. */
  get network(): NetworkPolicy {
    return this.latest.network;
  }

  private get params() {
    return { params: { path: { id: this.id } } };
  }

  /** Runs a shell command as root and waits for it. */
  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const body = { command, cwd: options.cwd, env: options.env, timeout_seconds: options.timeoutSeconds };
    return (await bodyOf(this.connection.api.POST('/api/sandboxes/{id}/exec', { ...this.params, body })))
      .data;
  }

  async createToken(options: CreateTokenOptions): Promise<TokenGrant> {
    const body = { abilities: options.abilities, expires_in: options.expiresIn, origins: options.origins };
    return (await bodyOf(this.connection.api.POST('/api/sandboxes/{id}/tokens', { ...this.params, body })))
      .data;
  }

  async update(options: UpdateOptions): Promise<this> {
    const body = {
      metadata: options.metadata,
      idle_timeout_seconds: options.idleTimeoutSeconds,
      network: options.network,
    };
    return this.took(this.connection.api.PATCH('/api/sandboxes/{id}', { ...this.params, body }));
  }

  /** Stops it; files and processes are kept. */
  async stop(): Promise<this> {
    return this.took(this.connection.api.POST('/api/sandboxes/{id}/stop', this.params));
  }

  async resume(): Promise<this> {
    return this.took(this.connection.api.POST('/api/sandboxes/{id}/resume', this.params));
  }

  /**
   * Ends every process and starts it afresh over the same files, like a reboot; also at its
   * process limit (a runaway fork bomb), when `exec` answers `process_limit`. The desktop is
   * not running afterwards.
   */
  async restart(): Promise<this> {
    return this.took(this.connection.api.POST('/api/sandboxes/{id}/restart', this.params));
  }

  /** A running copy with the same files, metadata and network policy; this sandbox is unchanged. */
  async fork(options: { name?: string } = {}): Promise<Sandbox> {
    const call = this.connection.api.POST('/api/sandboxes/{id}/fork', { ...this.params, body: options });
    return new Sandbox(this.connection, (await bodyOf(call)).data);
  }

  /**
   * A template of its files as they are now (a running sandbox, frozen for a moment while they
   * are copied), ready at once: `sandboxes.create({ template: name })` makes sandboxes from it.
   */
  async snapshot(options: { name: string }): Promise<Template> {
    const call = this.connection.api.POST('/api/sandboxes/{id}/snapshot', { ...this.params, body: options });
    return new Template(this.connection, (await bodyOf(call)).data);
  }

  /** Deletes it and its files; `sandboxes.list({ all: true })` still shows it. */
  async destroy(): Promise<this> {
    return this.took(this.connection.api.DELETE('/api/sandboxes/{id}', this.params));
  }

  async refresh(): Promise<this> {
    return this.took(this.connection.api.GET('/api/sandboxes/{id}', this.params));
  }

  private async took(call: Promise<{ data?: { data: SandboxData }; error?: unknown; response: Response }>) {
    this.latest = (await bodyOf(call)).data;
    return this;
  }
}
