import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import type { Scope } from './scopes.js';

// What `OrreryContainer.start()` answers: the API's URL, the org and its keys, waits for what the
// read models show (the API answers once Kafka has the data; the read models follow within
// seconds), and `stop()`, which removes every container and the network it started.

export interface OrgKey {
  id: string;
  /** The key itself, `Authorization: Bearer <key>`. */
  key: string;
  scopes: Scope[];
}

export interface WaitOptions {
  /** How long to wait before failing; 30 s unless given. */
  timeoutMs?: number;
}

export class WaitTimedOut extends Error {
  constructor(what: string, timeoutMs: number) {
    super(
      `${what} did not appear within ${timeoutMs} ms; are the consumers running? (see the containers' logs)`,
    );
    this.name = 'WaitTimedOut';
  }
}

interface Parts {
  apiUrl: string;
  api: StartedTestContainer;
  containers: StartedTestContainer[];
  network: StartedNetwork;
}

const pollMs = 200;

export class StartedOrrery {
  readonly apiUrl: string;
  private orgId = '';
  private readonly keys: Record<string, OrgKey> = {};
  /** A key the waits read with (traces and the request log need their scopes). */
  private readerKey = '';

  constructor(private readonly parts: Parts) {
    this.apiUrl = parts.apiUrl;
  }

  /** The org made for this run. */
  get org(): { id: string } {
    return { id: this.orgId };
  }

  /** The key made under `name` (`default` when none was asked for). */
  apiKey(name = 'default'): OrgKey {
    const key = this.keys[name];
    if (!key) throw new RangeError(`no key named "${name}"; keys: ${Object.keys(this.keys).join(', ')}`);
    return key;
  }

  /** @internal Makes the org, turns tracing on, grants credit, makes the keys. */
  async prepareOrg(org: {
    name: string;
    tracing: boolean;
    creditCents: number;
    keys: Record<string, readonly Scope[]>;
  }): Promise<void> {
    const created = await this.admin<{ orgId: string }>(['org', 'create', '--name', org.name]);
    this.orgId = created.orgId;
    if (org.tracing) await this.admin(['tracing', 'enable', '--org', this.orgId]);
    if (org.creditCents > 0)
      await this.admin(['credit', 'grant', '--org', this.orgId, '--cents', String(org.creditCents)]);
    for (const [name, scopes] of Object.entries(org.keys)) {
      const key = await this.createKey(name, scopes);
      this.keys[name] = key;
    }
    const reader = await this.createKey('testcontainers reader', ['traces:write', 'inference:invoke']);
    this.readerKey = reader.key;
  }

  /** A further key for the org. */
  async createKey(name: string, scopes: readonly Scope[]): Promise<OrgKey> {
    const made = await this.admin<{ key: string; keyId: string; scopes: Scope[] }>([
      'key',
      'create',
      '--org',
      this.orgId,
      '--scopes',
      scopes.join(','),
      '--name',
      name,
    ]);
    return { id: made.keyId, key: made.key, scopes: made.scopes };
  }

  /** Waits until the trace is readable through `GET /api/traces/:id`; answers its body. */
  async waitForTrace(traceId: string, options: WaitOptions = {}): Promise<unknown> {
    return this.until(`trace ${traceId}`, options, async () => {
      const response = await this.read(`/api/traces/${encodeURIComponent(traceId)}`);
      return response.status === 200 ? await response.json() : undefined;
    });
  }

  /** Waits until the request log shows the title or preview request (its usage is then counted). */
  async waitForUsage(requestId: string, options: WaitOptions = {}): Promise<unknown> {
    return this.until(`usage of request ${requestId}`, options, async () => {
      const response = await this.read('/api/inference/requests?limit=100');
      if (response.status !== 200) return undefined;
      const page = (await response.json()) as { data: { id: string }[] };
      return page.data.find((row) => row.id === requestId);
    });
  }

  /** Stops and removes every container this run started, then its network. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.parts.containers].reverse().map((container) => container.stop()));
    await this.parts.network.stop();
  }

  private read(path: string): Promise<Response> {
    return fetch(new URL(path, this.apiUrl), { headers: { authorization: `Bearer ${this.readerKey}` } });
  }

  private async until<T>(
    what: string,
    options: WaitOptions,
    found: () => Promise<T | undefined>,
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await found();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new WaitTimedOut(what, timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** An operator's command in the API's container (`npm run admin -- …` there), its JSON answer. */
  private async admin<T = unknown>(args: string[]): Promise<T> {
    const result = await this.parts.api.exec([
      '/app/infra/containers/entrypoint.sh',
      'admin',
      ...args,
      '--json',
    ]);
    if (result.exitCode !== 0)
      throw new Error(
        `admin ${args.slice(0, 2).join(' ')} failed (${result.exitCode}): ${result.stderr.trim()}`,
      );
    return JSON.parse(result.stdout) as T;
  }
}
