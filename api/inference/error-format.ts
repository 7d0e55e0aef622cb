import { z } from 'zod';
import { type InferenceErrorCode, inferenceErrors } from '../../domain/inference/errors.ts';
import { ApiError, type ErrorFormat, Unavailable } from '../errors.ts';

// The inference surface's errors in the spec's body shape (spec 000, Errors):
// `{ error: { code, type, message, param } }`, written from the one ApiError type.

/** Codes of this surface beyond the spec's table (our decisions; README, "Title and preview"). */
export const serviceErrors = {
  // The usage event could not be acknowledged by Kafka: the answer is not served unbilled.
  usage_unavailable: {
    status: 503,
    type: 'api_error',
    message:
      'The request could not be recorded for billing, so its answer was not served. Retry in a few seconds with the same Idempotency-Key, and it is billed once.',
  },
  // An Idempotency-Key names one request: reused for another, it is refused rather than guessed at.
  idempotency_key_reused: {
    status: 422,
    type: 'invalid_request_error',
    message:
      'This Idempotency-Key was first used with another endpoint, model or body in the last 24 hours. Send a new key with a new request.',
  },
  // GET /requests/{requestId} for an id the org's log does not hold (another org's is not told apart).
  request_not_found: {
    status: 404,
    type: 'not_found_error',
    message:
      "Your organization has no request with this id. Check the id: it is the answer's `x-request-id` header.",
  },
} as const;

type Code = InferenceErrorCode | keyof typeof serviceErrors;
const rows: Record<Code, { status: number; type: string; message: string }> = {
  ...inferenceErrors,
  ...serviceErrors,
};

/** An ApiError from the table: status, default message, and the field at fault. */
export function inferenceApiError(
  code: Code,
  details: { message?: string; param?: string; headers?: Record<string, string> } = {},
): ApiError {
  const row = rows[code];
  return new ApiError(code, row.status, details.message ?? row.message, details.param, details.headers);
}

/** `type` of the errors raised outside this table (404, 413, 414, 415, 431, 500) by status. */
const typesByStatus: Partial<Record<number, string>> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
};

/** `type` by code, else by status. */
function typeOf(error: ApiError): string {
  const row = (rows as Partial<Record<string, { type: string }>>)[error.code];
  if (row) return row.type;
  return typesByStatus[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
}

/**
 * `param` is the offending field's path, `""` for the body itself (not JSON, not an object), and
 * null when the error is not about the request's fields.
 */
function paramOf(error: ApiError): string | null {
  if (error.param !== undefined) return error.param;
  return error.code === 'invalid_request' ? '' : null;
}

/** The body inferenceErrorFormat writes, as /openapi.json documents it (api/error-responses.ts). */
export const inferenceErrorBody = z.object({
  error: z.object({
    code: z.string().describe('stable, to branch on'),
    type: z.string().describe("OpenAI's error type: `invalid_request_error`, `authentication_error`, …"),
    message: z.string().describe('what went wrong and what to do next'),
    param: z.string().nullable().describe('the field at fault, `""` for the body itself, else null'),
  }),
});

export const inferenceErrorFormat: ErrorFormat = {
  contentType: () => 'application/json; charset=utf-8',
  body: (error) => {
    const body: z.output<typeof inferenceErrorBody> = {
      error: { code: error.code, type: typeOf(error), message: error.message, param: paramOf(error) },
    };
    return JSON.stringify(body);
  },
};

/**
 * A shared 503 (keys not yet read, Kafka or Postgres away, draining) as this surface's one
 * retryable 503: nothing was billed, and a retry with the same Idempotency-Key is safe.
 */
export function toInferenceError(error: unknown): unknown {
  if (!(error instanceof Unavailable)) return error;
  return inferenceApiError('usage_unavailable', { message: error.message, headers: error.headers });
}
