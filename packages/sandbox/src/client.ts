import { type ApiClient, Connection, type Fetch } from './connection.js';
import { missingArgument } from './errors.js';
import { Sandboxes } from './sandboxes.js';
import { Templates } from './templates.js';
import { fromToken } from './token-session.js';

// The package's entry (spec 002, "Client constructor options"): an org API key on a server.
// In a browser, use `Client.fromToken` with a sandbox token instead.

export interface ClientOptions {
  /** An org API key with scope `sandboxes:write`; keep it on a server. */
  apiKey: string;
  /** The API's address; `http://127.0.0.1:8080` by default. */
  baseUrl?: string;
  /** A fetch implementation; the global one by default. */
  fetch?: Fetch;
}

export class Client {
  /** Create, get and list sandboxes. */
  readonly sandboxes: Sandboxes;
  /** Build, list, get and delete templates (what sandboxes start from). */
  readonly templates: Templates;
  /** The typed low-level client, for routes the package does not wrap (`client.client.GET('/api/me')`). */
  readonly client: ApiClient;
  readonly baseUrl: string;

  constructor(options: ClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey === '')
      throw missingArgument('apiKey', 'send an org API key with scope `sandboxes:write`');
    const connection = new Connection({
      bearer: options.apiKey,
      baseUrl: options.baseUrl,
      fetch: options.fetch,
    });
    this.sandboxes = new Sandboxes(connection);
    this.templates = new Templates(connection);
    this.client = connection.api;
    this.baseUrl = connection.baseUrl;
  }

  /** A sandbox token's desktop and live screen, for a browser: see token-session.ts. */
  static fromToken = fromToken;
}
