import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorFormat, jsonErrorFormat } from './errors.ts';
import { inferenceErrorFormat } from './inference/error-format.ts';
import { otlpErrorFormat } from './otlp/errors.ts';

// What the server answers before any route's handler runs: no route for the path (404), a path
// parameter too long (414) or not percent-decodable (422), headers too large (431), a request not
// received in time (408). Each in the error shape of the surface the path belongs to, so a client
// of one surface reads one shape, whatever refused its request.

/** Where each surface is mounted (app.ts registers its plugins there). */
export const surfacePrefixes = { otlp: '/api/otlp', inference: '/api/inference' } as const;

/** The error shape by path; the JSON surfaces' one elsewhere. */
const formatsByPrefix: readonly [prefix: string, format: ErrorFormat][] = [
  [`${surfacePrefixes.otlp}/`, otlpErrorFormat],
  [`${surfacePrefixes.inference}/`, inferenceErrorFormat],
];

export function errorFormatOf(url: string): ErrorFormat {
  return formatsByPrefix.find(([prefix]) => url.startsWith(prefix))?.[1] ?? jsonErrorFormat;
}

/** Answers `error` in the shape of the surface the request's path belongs to. */
export function sendInSurfaceShape(error: ApiError, request: FastifyRequest, reply: FastifyReply) {
  const format = errorFormatOf(request.url);
  return reply
    .status(error.status)
    .headers(error.headers)
    .type(format.contentType(request))
    .send(format.body(error, request));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  const message = `No route ${request.method} ${request.url}; see /openapi.json.`;
  return sendInSurfaceShape(new ApiError('not_found', 404, message), request, reply);
}

/** Fastify's router errors (its `frameworkErrors` option). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return sendInSurfaceShape(
      new ApiError('uri_too_long', 414, 'A path parameter is over 100 characters: send a shorter one.'),
      request,
      reply,
    );
  if (error.code === 'FST_ERR_BAD_URL')
    return sendInSurfaceShape(
      new ApiError('invalid_request', 422, 'The path is not valid percent-encoded UTF-8; fix it and retry.'),
      request,
      reply,
    );
  return sendInSurfaceShape(
    new ApiError('invalid_request', error.statusCode ?? 400, error.message),
    request,
    reply,
  );
}

/** What Node's HTTP parser refused, before any request existed (Fastify's `clientErrorHandler`). */
const clientErrors: Record<string, ApiError> = {
  HPE_HEADER_OVERFLOW: new ApiError(
    'headers_too_large',
    431,
    'The request line and headers are over 16 KiB: send a shorter URL or fewer headers.',
  ),
  ERR_HTTP_REQUEST_TIMEOUT: new ApiError(
    'request_timeout',
    408,
    'The request did not arrive whole in time: send it again on a new connection.',
  ),
};
const malformed = new ApiError('invalid_request', 400, 'The request is not valid HTTP/1.1.');

/**
 * Answers the parser's refusal in the shape of the path's surface, read from the request line
 * Node kept (`rawPacket`), then closes the connection, as Node and Fastify do.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const apiError = clientErrors[error.code ?? ''] ?? malformed;
    const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 1024) : '';
    const url = /^[A-Z]+ (\S+)/.exec(packet)?.[1] ?? '/';
    // Only the URL is known; the OTLP surface then answers in JSON, as it does to any request whose
    // Content-Type it did not understand.
    const request = { url, headers: {} } as FastifyRequest;
    const format = errorFormatOf(url);
    const body = Buffer.from(format.body(apiError, request));
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
        `Content-Type: ${format.contentType(request)}\r\nContent-Length: ${body.length}\r\n` +
        'Connection: close\r\n\r\n',
    );
    socket.write(body);
  }
  socket.destroy(error);
}
