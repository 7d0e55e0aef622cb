import type { Server } from 'node:http';
import { type FastifyBaseLogger, type FastifyHttpOptions, LogController } from 'fastify';
import { config } from './config.ts';
import type { HttpSettings, HttpTimeouts } from './http-settings.ts';
import type { Logger } from './logger.ts';

/** A server's timeouts, and whom it believes about a client's address (none when left out). */
export type ServerHttpSettings = HttpTimeouts & Partial<Pick<HttpSettings, 'trustProxy'>>;

/**
 * Options every Fastify server of ours shares: our pino logger, no per-request log lines, the
 * timeouts that cut off a slow or lying client, and the proxies whose X-Forwarded-For makes
 * `request.ip` (platform/http-settings.ts).
 */
export function serverOptions(
  logger: Logger,
  http: ServerHttpSettings = config().http,
): FastifyHttpOptions<Server> {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    trustProxy: http.trustProxy ?? false,
    ...timeoutOptions(http),
  };
}

/**
 * Node's own timeouts, which answer 408 and close the connection. No socket inactivity timeout
 * (`connectionTimeout`): once a request is in, a silent connection is often right (an exec
 * waits up to 600 s before its answer's first byte), and the request timeout already bounds
 * a client that stops sending.
 */
function timeoutOptions(timeouts: HttpTimeouts): FastifyHttpOptions<Server> {
  // The request timeout goes to both: Node checks it against the headers timeout when it makes
  // the server, and Fastify then sets its own (0, none, unless given) on it.
  return {
    connectionTimeout: 0,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: checkingIntervalMs(Math.min(timeouts.headersMs, timeouts.requestMs)),
    },
  };
}

/**
 * How often a timeout of `timeoutMs` is checked: a tenth of it, at most a second, which keeps the
 * cut within a tenth of its time. Node checks the headers and request timeouts on an interval
 * (30 s by default, which would let a 60 s timeout run to 90 s), walking only the connections with
 * a request in progress; the slow bodies watch (api/slow-bodies.ts) checks its own the same way.
 */
export function checkingIntervalMs(timeoutMs: number): number {
  return Math.min(1_000, Math.ceil(timeoutMs / 10));
}
