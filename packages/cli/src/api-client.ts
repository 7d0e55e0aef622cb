import { ApiRefused, Failure } from './failures.ts';

// The API over HTTP, nothing else of the platform (ARCHITECTURE.md, packages/). An answer keeps its
// text as sent, so `--json` prints the API's answer whole, fields unknown to the tool included.
// Refusals come in two shapes: the JSON surfaces' `{ error: { code, message, param? } }` and, from
// the login's OAuth endpoints, RFC 6749's `{ error, error_description }`; both become ApiRefused.

export interface Answer {
  status: number;
  /** The body exactly as sent. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
}

export interface ApiClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; none for the login's endpoints. */
  key?: string | undefined;
  userAgent: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, string>;
  /** More headers, such as `idempotency-key`. */
  headers?: Record<string, string>;
}

/**
 * The API could not be reached, or its answer did not arrive whole (a connection cut, no answer
 * in time): for a POST, the API may have acted all the same.
 */
export class Unreachable extends Failure {
  /** `ECONNREFUSED`, `no answer in time`, … */
  readonly reason: string;

  constructor(baseUrl: string, reason: string) {
    super(`Cannot reach the API at ${baseUrl} (${reason}): check --api-url.`);
    this.name = 'Unreachable';
    this.reason = reason;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The refusal an answer carries, in either of the API's two error shapes. */
export function refusalOf(answer: Answer): ApiRefused {
  const { status, body } = answer;
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string')
    return new ApiRefused({
      status,
      code: error.code,
      message: error.message,
      param: typeof error.param === 'string' ? error.param : undefined,
    });
  if (typeof error === 'string' && isRecord(body))
    return new ApiRefused({
      status,
      code: error,
      message: typeof body.error_description === 'string' ? body.error_description : error,
    });
  const excerpt = answer.text.trim().slice(0, 200);
  return new ApiRefused({
    status,
    code: 'unexpected_answer',
    message: `The API answered ${status} without an error object${excerpt ? `: ${excerpt}` : ''}. Check --api-url.`,
  });
}

export class ApiClient {
  readonly baseUrl: string;
  readonly #key: string | undefined;
  readonly #userAgent: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl;
    this.#key = options.key;
    this.#userAgent = options.userAgent;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * One request; any status comes back as an Answer. Only an API out of reach throws: Unreachable,
   * which for a POST may mean the API acted and its answer was lost.
   */
  async send(method: 'GET' | 'POST' | 'DELETE', path: string, options: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = {
      ...options.headers,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    if (this.#key !== undefined) headers.authorization = `Bearer ${this.#key}`;
    let body: string | undefined;
    if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const url = `${this.baseUrl}${path}`;
    try {
      const response = await this.#fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      const text = await response.text();
      return { status: response.status, text, body: parseJson(text) };
    } catch (error) {
      throw new Unreachable(this.baseUrl, reasonOf(error));
    }
  }

  /**
   * A GET whose body is read as it arrives (NDJSON): no time limit, since a followed run's output
   * may last hours; `signal` ends it. A refusal throws ApiRefused, an API out of reach Failure.
   */
  async stream(path: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const headers: Record<string, string> = { accept: 'application/x-ndjson', 'user-agent': this.#userAgent };
    if (this.#key !== undefined) headers.authorization = `Bearer ${this.#key}`;
    let response: Response;
    try {
      response = await this.#fetch(`${this.baseUrl}${path}`, { headers, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new Failure(`Cannot reach the API at ${this.baseUrl} (${reasonOf(error)}): check --api-url.`);
    }
    if (response.status >= 400 || !response.body) {
      const text = await response.text();
      throw refusalOf({ status: response.status, text, body: parseJson(text) });
    }
    return response.body;
  }

  /** A GET whose refusal (any status from 400) is thrown as ApiRefused. */
  async get(path: string): Promise<Answer> {
    const answer = await this.send('GET', path);
    if (answer.status >= 400) throw refusalOf(answer);
    return answer;
  }

  /** A POST whose refusal throws ApiRefused. */
  async post(path: string, options: RequestOptions): Promise<Answer> {
    const answer = await this.send('POST', path, options);
    if (answer.status >= 400) throw refusalOf(answer);
    return answer;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `ECONNREFUSED`, `timed out`, …: the cause under fetch's "fetch failed". */
function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = error instanceof Error ? error.cause : undefined;
  if (isRecord(cause) && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
