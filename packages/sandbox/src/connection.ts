import createClient, { type Client as OpenApiClient } from 'openapi-fetch';
import { defaultBaseUrl } from './addresses.js';
import { apiErrorFrom } from './errors.js';
import type { paths } from './openapi.generated.js';

// One address and one credential (an API key or a sandbox token): the typed low-level client
// over them, and the one place an answer becomes its data or an `ApiError`.

/** The typed low-level client: every route of the API's /openapi.json (`client.client`). */
export type ApiClient = OpenApiClient<paths>;

/** A fetch implementation; the global one when none is given. */
export type Fetch = (input: Request) => Promise<Response>;

/** Read when called, not when the client is made: a page or a test may replace it later. */
const globalFetch: Fetch = (input) => globalThis.fetch(input);

/** What openapi-fetch resolves with: the parsed body of a success, or of a refusal. */
type Answer<D> = { data?: D; error?: unknown; response: Response };

function succeeded<D>(answer: Answer<D>): answer is { data: D; response: Response } {
  return answer.response.ok;
}

/** A success's parsed body and its response (for headers), or the `ApiError` of a refusal. */
export async function answerOf<D>(call: Promise<Answer<D>>): Promise<{ data: D; response: Response }> {
  const answer = await call;
  if (!succeeded(answer)) throw apiErrorFrom(answer.response.status, answer.error);
  return answer;
}

/** A success's parsed body, or the `ApiError` of a refusal. */
export async function bodyOf<D>(call: Promise<Answer<D>>): Promise<D> {
  return (await answerOf(call)).data;
}

export interface ConnectionOptions {
  /** An API key, or a sandbox token. */
  bearer: string;
  baseUrl?: string | undefined;
  fetch?: Fetch | undefined;
}

export class Connection {
  readonly baseUrl: string;
  readonly api: ApiClient;
  private readonly fetch: Fetch;
  private readonly authorization: string;

  constructor(options: ConnectionOptions) {
    this.baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalFetch;
    this.authorization = `Bearer ${options.bearer}`;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: this.fetch,
      headers: { authorization: this.authorization },
    });
  }

  /**
   * `PUT` of raw bytes (a file's contents): the document describes no body for it, so it is sent
   * here rather than through `api`, and answered the same way.
   */
  async putBytes(path: string, bytes: Uint8Array): Promise<unknown> {
    const request = new Request(`${this.baseUrl}${path}`, {
      method: 'PUT',
      headers: { authorization: this.authorization, 'content-type': 'application/octet-stream' },
      body: ownBuffer(bytes),
    });
    const response = await this.fetch(request);
    const text = await response.text();
    const body = parseJson(text);
    if (!response.ok) throw apiErrorFrom(response.status, body);
    return body;
  }
}

/** The same bytes over a plain `ArrayBuffer` (what a request body takes), copied only from a shared one. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : bytes.slice();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
