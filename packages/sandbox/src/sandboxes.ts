import type { CreateBody, NetworkOptions, SandboxSize } from './api-types.js';
import { bodyOf, type Connection } from './connection.js';
import { Sandbox } from './sandbox.js';

// `client.sandboxes` (spec 002, "`sandboxes.create(options?)`" and "Lookup"): the package's
// camelCase options, sent as the API's snake_case fields.

export interface CreateOptions {
  /** `small` by default. */
  size?: SandboxSize;
  /** Lowercase letters, digits and dashes, up to 63, unique in the org; `sb-` and six hex digits by default. */
  name?: string;
  /** Up to 16 string labels. */
  metadata?: Record<string, string>;
  /** 60 to 604800, or 0 (the default) for never. */
  idleTimeoutSeconds?: number;
  /** Up to 255 characters: a retry with the same key resolves with the sandbox the first attempt created. */
  idempotencyKey?: string;
  /**
   * What it may reach: `egress` `open` (the default: the internet, never the host, private
   * networks, link-local or other sandboxes) or `none` (loopback only); `allow` narrows open to
   * the CIDRs and host names it lists, `deny` takes more away; up to 100 entries a list.
   */
  network?: NetworkOptions;
  /**
   * A ready template's id or name: the sandbox starts from its files (and lives on its host).
   * One still building or failed is refused with `template_not_ready`.
   */
  template?: string;
}

export interface ListOptions {
  /** Only sandboxes having every given key and value. */
  metadata?: Record<string, string>;
  /** Deleted sandboxes too. */
  all?: boolean;
}

/** The list's query: `metadata[key]=value` per key (as the API reads it), and `all`. */
function listQuery(options: ListOptions): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(options.metadata ?? {})) query.append(`metadata[${key}]`, value);
  if (options.all !== undefined) query.set('all', String(options.all));
  return query.toString();
}

export class Sandboxes {
  constructor(private readonly connection: Connection) {}

  /** Resolves once the sandbox is running. */
  async create(options: CreateOptions = {}): Promise<Sandbox> {
    const body: CreateBody = {
      size: options.size,
      name: options.name,
      metadata: options.metadata,
      idle_timeout_seconds: options.idleTimeoutSeconds,
      idempotency_key: options.idempotencyKey,
      network: options.network,
      template: options.template,
    };
    const answer = await bodyOf(this.connection.api.POST('/api/sandboxes', { body }));
    return new Sandbox(this.connection, answer.data);
  }

  async get(idOrName: string): Promise<Sandbox> {
    const call = this.connection.api.GET('/api/sandboxes/{id}', { params: { path: { id: idOrName } } });
    return new Sandbox(this.connection, (await bodyOf(call)).data);
  }

  /** Newest first. */
  async list(options: ListOptions = {}): Promise<Sandbox[]> {
    const call = this.connection.api.GET('/api/sandboxes', { querySerializer: () => listQuery(options) });
    return (await bodyOf(call)).data.map((data) => new Sandbox(this.connection, data));
  }
}
