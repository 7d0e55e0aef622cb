import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type FastifyBaseLogger, type FastifyHttpOptions, LogController } from 'fastify';
import { config } from '../platform/config.ts';
import type { HttpTimeouts } from '../platform/http-settings.ts';
import type { Logger } from '../platform/logger.ts';

/**
 * Options every Fastify server of ours shares: our pino logger, no per-request log lines, and
 * the timeouts that cut off a slow or lying client (platform/http-settings.ts).
 */
export function serverOptions(
  logger: Logger,
  timeouts: HttpTimeouts = config().http,
): FastifyHttpOptions<Server> {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    ...timeoutOptions(timeouts),
  };
}

/** What Node reports before a request reached a route, as the API's code and message. */
const clientErrors: Record<string, { status: number; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    message: 'The request did not arrive whole in time; send it again at once, all of it.',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    message: 'The request headers are too large (16 KiB at most); send fewer or smaller ones.',
  },
};
const malformed = { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' };

/**
 * Node's own refusals (a request too slow to arrive, headers too large, bytes that are not HTTP)
 * written in the API's error shape `{ error: { code, message } }`, then the connection closed, as
 * Node does; Fastify's default writes a shape of its own.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = (error.code && clientErrors[error.code]) || malformed;
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nConnection: close\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
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
      connectionsCheckingInterval: checkingIntervalMs(timeouts),
    },
  };
}

/**
 * Node checks the headers and request timeouts on an interval (30 s by default, which would
 * let a 60 s timeout run to 90 s): a tenth of the shorter one, at most a second, keeps the cut
 * within a tenth of its time. Each check walks only the connections with a request in progress.
 */
export function checkingIntervalMs(timeouts: HttpTimeouts): number {
  return Math.min(1_000, Math.ceil(Math.min(timeouts.headersMs, timeouts.requestMs) / 10));
}
