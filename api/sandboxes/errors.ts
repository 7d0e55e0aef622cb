import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { changeNotRecordedMessage, SandboxError } from '../../domain/sandboxes/errors.ts';
import { fileSizeLimitBytes } from '../../domain/sandboxes/requests.ts';
import { ReadModelBehind } from '../../producers/command-shell.ts';
import { PublishFailed } from '../../producers/producer.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';

// The sandbox surface's errors: the spec's table (domain/sandboxes/errors.ts) written through the
// one ApiError type in the shape `{ error: { code, message, param? } }` (jsonErrorFormat). Codes
// of our own, for when the platform cannot do what was asked: 503 `unavailable` (Kafka did not
// acknowledge, the read model did not show the change in time, or the sandbox's host cannot be
// reached), 503 `no_capacity` (no host has room for the size) and 503 `not_configured` (the host
// runs without a desktop). A host's refusal arrives as an ApiError already (host-client.ts).

const unavailable = () =>
  new ApiError('unavailable', 503, changeNotRecordedMessage, undefined, { 'retry-after': '5' });

/** A file's declared length over the limit, refused before a byte is passed on. */
export const fileTooLarge = () =>
  new ApiError(
    'invalid_request',
    422,
    `Invalid \`contents\`: send a file of at most ${fileSizeLimitBytes} bytes (64 MiB).`,
    'contents',
  );

export function toSandboxApiError(error: unknown, request: FastifyRequest): unknown {
  if (error instanceof SandboxError)
    return new ApiError(error.code, error.status, error.message, error.param);
  if (error instanceof PublishFailed || error instanceof ReadModelBehind) {
    request.log.warn({ err: error }, 'sandboxes: change not recorded');
    return unavailable();
  }
  const code = (error as FastifyError | undefined)?.code;
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
