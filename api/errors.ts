import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatParam } from '../domain/params.ts';

/**
 * The one error type of the API (Stripe's and OpenAI's convention): a stable `code` to branch
 * on, the HTTP `status`, a `message` that says what to do next, and `param` naming the field
 * at fault. Each surface renders it in its own shape (see `ErrorFormat`).
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const unauthorized = () =>
  new ApiError(
    'unauthorized',
    401,
    'Send a valid API key as "Authorization: Bearer <API_KEY>"; create one under Settings, or replace a revoked key.',
  );

export const insufficientScope = (scope: string) =>
  new ApiError(
    'insufficient_scope',
    403,
    `This key lacks the scope ${scope}: add it to the key under Settings, or log in through the command-line tool for a key that has it.`,
  );

/**
 * A key was sent before the API has read the org stream to its end (after a restart), so it
 * cannot be judged yet: 503 with Retry-After, which every client retries, never a 401, which
 * OTLP exporters do not. The code is the JSON surfaces' `unavailable`; the OTLP and inference
 * surfaces write it as their own 503 (`tracing_unavailable`, `usage_unavailable`).
 */
export class KeysNotLoaded extends ApiError {
  static readonly retryAfterSeconds = 5;

  constructor() {
    super(
      'unavailable',
      503,
      'The API is still loading its keys after a restart: retry in a few seconds (a retry is safe).',
      undefined,
      { 'retry-after': String(KeysNotLoaded.retryAfterSeconds) },
    );
    this.name = 'KeysNotLoaded';
  }
}

/** How a surface writes an ApiError: its body and content type. */
export interface ErrorFormat {
  contentType(request: FastifyRequest): string;
  body(error: ApiError, request: FastifyRequest): string | Buffer;
}

/**
 * The error body of the sandbox, account, billing and query surfaces: `{ error: { code, message,
 * param? } }`, as jsonErrorFormat writes it and /openapi.json documents it (error-responses.ts).
 */
export const jsonErrorBody = z.object({
  error: z.object({
    code: z.string().describe('stable, to branch on'),
    message: z.string().describe('what went wrong and what to do next'),
    param: z.string().optional().describe('the field at fault, when one is'),
  }),
});

export const jsonErrorFormat: ErrorFormat = {
  contentType: () => 'application/json; charset=utf-8',
  body: (error) => {
    const body: z.output<typeof jsonErrorBody> = {
      error: {
        code: error.code,
        message: error.message,
        ...(error.param === undefined ? {} : { param: error.param }),
      },
    };
    return JSON.stringify(body);
  },
};

/** Turns whatever a handler or hook threw into an ApiError. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    const [first] = fastifyError.validation;
    // A JSON pointer's segments are strings; its array indexes are numbers in the spec's notation.
    const segments: string[] = (first?.instancePath ?? '').split('/').filter(Boolean);
    const param = formatParam(segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)));
    return new ApiError(
      'invalid_request',
      422,
      `${param || 'body'}: ${first?.message ?? 'invalid'}; fix it and retry.`,
      param || undefined,
    );
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError('payload_too_large', 413, 'The body is too large; send a smaller one.');
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('unsupported_media_type', 415, 'Send the body as application/json.');
  }
  if (
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
  ) {
    return new ApiError('invalid_request', 422, 'The body is not valid JSON; send a JSON object.');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
    return new ApiError('invalid_request', fastifyError.statusCode, fastifyError.message);
  }
  return new ApiError(
    'internal_error',
    500,
    'Something went wrong on our side; retry, and contact support if it persists.',
  );
}

/**
 * A Fastify error handler writing every error in one surface's format; `asSurfaceError` first
 * turns a shared error into the surface's own (the auth hook's 503 into the OTLP or title one).
 */
export function errorHandler(
  format: ErrorFormat,
  asSurfaceError: (error: unknown) => unknown = (error) => error,
) {
  return (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const error = asSurfaceError(thrown);
    // A client that went away (or was cut off by a timeout, server-options.ts) while its body was
    // read is no fault of ours, and there is no one left to answer. The socket says so, not the
    // request stream: that one is destroyed as soon as its body has been read whole.
    if (request.raw.socket?.destroyed) {
      request.log.info({ err: error }, 'the client closed the connection before its request was read');
      return reply;
    }
    const apiError = toApiError(error);
    if (apiError.status >= 500 && apiError.code === 'internal_error')
      request.log.error({ err: error }, 'unhandled error');
    return reply
      .status(apiError.status)
      .headers(apiError.headers)
      .type(format.contentType(request))
      .send(format.body(apiError, request));
  };
}
