import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import { fileSizeLimitBytes } from '../../domain/sandboxes/requests.ts';
import { PublishFailed } from '../../producers/producer.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';

// The sandbox surface's errors: the spec's table (domain/sandboxes/errors.ts) written through the
// one ApiError type in the shape `{ error: { code, message, param? } }` (jsonErrorFormat). Two
// codes of our own, for when the platform cannot record a change: 503 `unavailable` (Kafka did
// not acknowledge, or the read model did not show the change in time) and 503 `not_configured`
// (this API runs without a desktop).

/** The read model did not show a published change in time (are the consumers running?). */
export class ReadModelBehind extends Error {
  constructor(sandboxId: string) {
    super(`the sandbox read model did not show the change to ${sandboxId} in time`);
    this.name = 'ReadModelBehind';
  }
}

const unavailable = () =>
  new ApiError(
    'unavailable',
    503,
    'The change could not be recorded right now: retry in a few seconds (a retry is safe).',
    undefined,
    { 'retry-after': '5' },
  );

export const desktopNotConfigured = () =>
  new ApiError(
    'not_configured',
    503,
    'This API runs without a desktop: start it with one (sandbox-runtime/desktop), or call another deployment.',
  );

export function toSandboxApiError(error: unknown, request: FastifyRequest): unknown {
  if (error instanceof SandboxError)
    return new ApiError(error.code, error.status, error.message, error.param);
  if (error instanceof PublishFailed || error instanceof ReadModelBehind) {
    request.log.warn({ err: error }, 'sandboxes: change not recorded');
    return unavailable();
  }
  const code = (error as FastifyError | undefined)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' && request.method === 'PUT') {
    return new ApiError(
      'invalid_request',
      422,
      `Invalid \`contents\`: send a file of at most ${fileSizeLimitBytes} bytes (64 MiB).`,
      'contents',
    );
  }
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('invalid_request', 422, 'The body is not valid JSON: send a JSON object.', '');
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('invalid_request', 422, 'Send the body as application/json.', '');
  }
  return error;
}

const writeError = errorHandler(jsonErrorFormat);

export function sandboxErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  return writeError(toSandboxApiError(error, request), request, reply);
}
