import type { FastifyReply, FastifyRequest } from 'fastify';
import { RunError } from '../../domain/runs/errors.ts';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import { PublishFailed } from '../../producers/producer.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';

// The run surface's errors: domain/runs/errors.ts's table, and the sandbox surface's for what the
// two share (a 422 from the sandbox wording's parser), through the one ApiError type in the shape
// `{ error: { code, message, param? } }` (jsonErrorFormat). A placement Kafka did not acknowledge
// is 503 `unavailable`: nothing was placed, and a retry is safe.

export function toRunApiError(error: unknown, request: FastifyRequest): unknown {
  if (error instanceof RunError || error instanceof SandboxError)
    return new ApiError(error.code, error.status, error.message, error.param);
  if (error instanceof PublishFailed) {
    request.log.warn({ err: error }, 'runs: change not recorded');
    return new ApiError(
      'unavailable',
      503,
      'The run could not be recorded right now, so nothing was placed: retry in a few seconds (a retry is safe).',
      undefined,
      { 'retry-after': '5' },
    );
  }
  const code = (error as { code?: string } | undefined)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError(
      'invalid_request',
      422,
      'Invalid `files`: send at most 10 MiB of files in all (the body is over its limit).',
      'files',
    );
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new ApiError('invalid_request', 422, 'The body is not valid JSON: send a JSON object.', '');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ApiError('invalid_request', 422, 'Send the body as application/json.', '');
  return error;
}

const writeError = errorHandler(jsonErrorFormat);

export function runErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  return writeError(toRunApiError(error, request), request, reply);
}
