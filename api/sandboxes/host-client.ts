import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import { WebSocket } from 'ws';
import type { z } from 'zod';
import { hostAuthorization } from '../../platform/host-secret.ts';
import type { Logger } from '../../platform/logger.ts';
import { hostPath, hostPaths } from '../../schemas/sandbox-hosts.ts';
import { ApiError } from '../errors.ts';
import { type Fleet, HostUnreachable } from './fleet.ts';

// How an API replica calls a sandbox host (schemas/sandbox-hosts.ts): undici over kept-alive
// connections, the shared secret on every call. A host that refuses answers in the public error
// shape, passed on to the caller as it is; a host that cannot be reached (its lease run out, its
// port closed, no answer to a connect within a second, or a hung process) is a 503 with
// Retry-After, never a hang.

/** A host that does not accept a connection within this long is unreachable (a machine gone). */
const connectTimeoutMs = 1_000;

/**
 * A call may rightly take minutes (an exec, a desktop start), so its answer is not timed; instead,
 * from `watch.afterMs` after it was sent until its answer starts, the host's /healthz is asked, each
 * answer due within `watch.answerMs`, then again each `watch.answerMs`: a live host answers at once
 * whatever it is doing, and one that does not (stopped, its event loop stuck, its machine gone
 * without a reset) is cut off, the caller hearing 503 within about 1.5 s of the call.
 */
const watch = { afterMs: 500, answerMs: 1_000 } as const;

export interface HostCall {
  method: 'GET' | 'POST' | 'PUT';
  /** A path of schemas/sandbox-hosts.ts, its `:id` filled in (hostPath). */
  path: string;
  query?: Record<string, string | undefined>;
  /** A JSON body (the caller's body as it came, or the protocol's own). */
  json?: unknown;
  /** A streamed body (a file's bytes) and its length when the caller declared one. */
  stream?: { body: Readable; length?: string };
}

/** Connection failures that happen before a request is sent: another host may safely be tried. */
const notSentCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** A call that never reached the host: placement tries the next one. */
export class HostNotReached extends HostUnreachable {
  constructor(hostId: string) {
    super(hostId);
    this.name = 'HostNotReached';
  }
}

export class HostClient {
  private readonly agent = new Agent({
    connect: { timeout: connectTimeoutMs },
    keepAliveTimeout: 30_000,
    // An exec may run 600 s, a desktop start a minute: only the connect is timed here, and a hung
    // host is cut off when its lease runs out (fleet.ts).
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  constructor(
    readonly fleet: Fleet,
    private readonly secret: string,
    private readonly logger: Logger,
  ) {}

  /**
   * The host's answer with its body unread; a refusal is thrown as the ApiError it is. A call
   * the host's old address refused is sent once more if the host has announced a new one since
   * (a restarted host on another port): nothing was sent the first time.
   */
  async send(hostId: string, call: HostCall): Promise<Dispatcher.ResponseData> {
    const { url } = await this.fleet.reach(hostId);
    try {
      return await this.sendOnce(hostId, call);
    } catch (error) {
      if (!(error instanceof HostNotReached) || call.stream) throw error;
      await this.fleet.refresh();
      if ((await this.fleet.reach(hostId)).url === url) throw error;
      return this.sendOnce(hostId, call);
    }
  }

  private async sendOnce(hostId: string, call: HostCall): Promise<Dispatcher.ResponseData> {
    const host = await this.fleet.reach(hostId);
    const controller = new AbortController();
    const untrack = this.fleet.track(hostId, controller);
    const url = new URL(call.path, host.url);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: hostAuthorization(this.secret) };
    let body: string | Readable | undefined;
    if (call.stream) {
      body = call.stream.body;
      headers['content-type'] = 'application/octet-stream';
      if (call.stream.length !== undefined) headers['content-length'] = call.stream.length;
    } else if (call.json !== undefined || call.method !== 'GET') {
      body = JSON.stringify(call.json ?? {});
      headers['content-type'] = 'application/json';
    }
    let response: Dispatcher.ResponseData;
    const watching = this.watchWhileWaiting(hostId, host.url, controller);
    try {
      response = await request(url, {
        dispatcher: this.agent,
        method: call.method,
        headers,
        body,
        signal: controller.signal,
      });
    } catch (error) {
      untrack();
      throw this.unreachable(hostId, error, controller);
    } finally {
      watching.stop();
    }
    response.body.once('close', untrack);
    if (response.statusCode >= 400) throw await this.refusal(hostId, response);
    return response;
  }

  /** Asks the host's /healthz while a call waits for its answer (see `watch`); aborts the call if it goes unanswered. */
  private watchWhileWaiting(hostId: string, hostUrl: string, call: AbortController): { stop(): void } {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const probe = async () => {
      const alive = await request(new URL('/healthz', hostUrl), {
        dispatcher: this.agent,
        signal: AbortSignal.timeout(watch.answerMs),
      }).then(
        async (answer) => {
          await answer.body.dump();
          return answer.statusCode === 200;
        },
        () => false,
      );
      if (stopped) return;
      if (!alive) {
        this.logger.warn({ hostId }, 'sandboxes: a sandbox host stopped answering during a call; cut off');
        call.abort(new HostUnreachable(hostId));
        return;
      }
      timer = setTimeout(probe, watch.answerMs);
    };
    timer = setTimeout(probe, watch.afterMs);
    return {
      stop() {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** A JSON answer, parsed with the protocol's schema. */
  async json<S extends z.ZodType>(hostId: string, call: HostCall, answer: S): Promise<z.output<S>> {
    const response = await this.send(hostId, call);
    return answer.parse(await response.body.json());
  }

  /**
   * The host's end of a sandbox's live screen (sandbox-host/screen.ts), open; a refusal (no
   * desktop, a stopped sandbox) is thrown as the ApiError the host answered, before any upgrade.
   */
  async openScreen(hostId: string, sandboxId: string): Promise<WebSocket> {
    const host = await this.fleet.reach(hostId);
    const url = new URL(hostPath(hostPaths.screen, sandboxId), host.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const upstream = new WebSocket(url, {
      headers: { authorization: hostAuthorization(this.secret) },
      handshakeTimeout: connectTimeoutMs * 2,
      maxPayload: 16 * 1024 * 1024,
    });
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => upstream.terminate());
    const untrack = this.fleet.track(hostId, controller);
    upstream.once('close', untrack);
    return new Promise((resolve, reject) => {
      upstream.once('open', () => resolve(upstream));
      upstream.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          upstream.terminate();
          reject(
            this.refusalOf(hostId, response.statusCode ?? 500, Buffer.concat(chunks).toString(), undefined),
          );
        });
      });
      upstream.once('error', (error) => {
        untrack();
        reject(this.unreachable(hostId, error, controller));
      });
    });
  }

  private unreachable(hostId: string, error: unknown, controller: AbortController): HostUnreachable {
    if (controller.signal.aborted && controller.signal.reason instanceof HostUnreachable)
      return controller.signal.reason;
    const code = (error as { code?: string } | undefined)?.code;
    this.logger.warn({ err: error, hostId }, 'sandboxes: a sandbox host could not be reached');
    return code !== undefined && notSentCodes.has(code)
      ? new HostNotReached(hostId)
      : new HostUnreachable(hostId);
  }

  private async refusal(hostId: string, response: Dispatcher.ResponseData): Promise<Error> {
    const text = await response.body.text().catch(() => '');
    const retryAfter = response.headers['retry-after'];
    return this.refusalOf(
      hostId,
      response.statusCode,
      text,
      typeof retryAfter === 'string' ? retryAfter : undefined,
    );
  }

  /** A host's refusal, in the public shape it answered; a failure of the host itself is a 503. */
  private refusalOf(hostId: string, status: number, text: string, retryAfter: string | undefined): Error {
    if (status === 401) {
      this.logger.error(
        { hostId },
        "sandboxes: the host refused this API replica's ORRERY_HOST_SECRET: set the same secret on both",
      );
      return new HostUnreachable(hostId);
    }
    let parsed: { error?: { code?: unknown; message?: unknown; param?: unknown } } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const { code, message, param } = parsed?.error ?? {};
    if (typeof code !== 'string' || typeof message !== 'string' || code === 'internal_error') {
      this.logger.error({ hostId, status, body: text.slice(0, 500) }, 'sandboxes: a sandbox host failed');
      return new ApiError(
        'internal_error',
        500,
        'Something went wrong on our side; retry, and contact support if it persists.',
      );
    }
    return new ApiError(
      code,
      status,
      message,
      typeof param === 'string' ? param : undefined,
      retryAfter === undefined ? {} : { 'retry-after': retryAfter },
    );
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
