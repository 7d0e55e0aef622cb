import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isPostgresUnreachable } from '../platform/postgres.ts';
import { PublishFailed } from '../producers/producer.ts';

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
 * The request was not served, for a reason that passes (a restart, a dependency away): 503 with
 * Retry-After, which every client retries. The code is the JSON surfaces' `unavailable`; the
 * OTLP and inference surfaces write it as their own 503 (`tracing_unavailable`,
 * `usage_unavailable`), keeping the message and headers.
 */
export class Unavailable extends ApiError {
  static readonly retryAfterSeconds = 5;

  /** `reason`: why, in a few words a surface may quote (the OTLP message's detail). */
  constructor(
    readonly reason: string,
    headers: Record<string, string> = {},
  ) {
    super('unavailable', 503, `${reason}: retry in a few seconds (a retry is safe).`, undefined, {
      'retry-after': String(Unavailable.retryAfterSeconds),
      ...headers,
    });
    this.name = 'Unavailable';
  }
}

/**
 * A key was sent before the API has read the org stream to its end (after a restart), so it
 * cannot be judged yet: a 503, never a 401, which OTLP exporters do not retry.
 */
export class KeysNotLoaded extends Unavailable {
  constructor() {
    super('The API is still loading its keys after a restart');
    this.name = 'KeysNotLoaded';
  }
}

export type Dependency = 'postgres' | 'kafka' | 'clickhouse';

const dependencyNames: Record<Dependency, string> = {
  postgres: 'Postgres',
  kafka: 'Kafka',
  clickhouse: 'ClickHouse, where traces and requests are read from,',
};

/** A store the request needs cannot be reached: nothing was done, and a retry later is safe. */
export class DependencyAway extends Unavailable {
  constructor(readonly dependency: Dependency) {
    super(`${dependencyNames[dependency]} cannot be reached just now, so nothing was done`);
    this.name = 'DependencyAway';
  }
}

/** The process is shutting down: the connection is closed after this answer, and a retry goes elsewhere. */
export class Draining extends Unavailable {
  constructor() {
    super('This API process is shutting down', { connection: 'close' });
    this.name = 'Draining';
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

/**
 * Turns whatever a handler or hook threw into an ApiError. A refused request part is one already
 * (request-validation.ts).
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
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

/** A failure that says Kafka or Postgres is away, as the 503 it is (not a 500); ClickHouse's: clickhouse-reads.ts. */
function dependencyAway(error: unknown): DependencyAway | undefined {
  if (error instanceof PublishFailed) return new DependencyAway('kafka');
  if (isPostgresUnreachable(error)) return new DependencyAway('postgres');
  return undefined;
}

/**
 * A Fastify error handler writing every error in one surface's format; `asSurfaceError` first
 * turns a shared error into the surface's own (an `Unavailable` into the OTLP or title 503).
 */
export function errorHandler(
  format: ErrorFormat,
  asSurfaceError: (error: unknown) => unknown = (error) => error,
) {
  return (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const away = dependencyAway(thrown);
    if (away) request.log.warn({ err: thrown }, `${away.dependency} away: answered 503`);
    const error = asSurfaceError(away ?? thrown);
    // A client that went away (or was cut off by a timeout, platform/server-options.ts) while its body was
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
