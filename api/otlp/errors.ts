// The error answers of the OTLP endpoint: the spec's response table ("Endpoints", Response) and
// its remedies ("Authentication", "Errors") as data, and the body built from them.
import type { FastifyRequest } from 'fastify';
import { limits, MiB } from '../../domain/tracing/limits.ts';
import { ApiError, type ErrorFormat, Unavailable } from '../errors.ts';
import { parseContentType } from './content-type.ts';
import { encodeStatus, type OtlpFormat, otlpContentTypes } from './encode.ts';

export type OtlpErrorCode =
  | 'invalid_otlp'
  | 'unauthorized'
  | 'tracing_not_enabled'
  | 'insufficient_scope'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'tracing_unavailable';

/** google.rpc.Code values used here. */
export const grpcCodes = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface OtlpErrorRow {
  httpStatus: number;
  grpcCode: number;
  /** Whether the exporter should retry (the response table's last column). */
  retry: boolean;
  /** Seconds in the Retry-After header, for the one retryable answer. */
  retryAfterSeconds?: number;
  /** What to do, after `<code>: ` in the Status message. */
  remedy: string;
}

// gRPC codes where the spec is silent: a body over the limits is RESOURCE_EXHAUSTED, as gRPC answers
// a message over its size limit; an unsupported content type or encoding is UNIMPLEMENTED, as gRPC
// answers an unsupported compression. OTLP/HTTP exporters decide retries by the HTTP status alone.
export const otlpErrors: Record<OtlpErrorCode, OtlpErrorRow> = {
  invalid_otlp: {
    httpStatus: 400,
    grpcCode: grpcCodes.INVALID_ARGUMENT,
    retry: false,
    remedy:
      'send an ExportTraceServiceRequest in the encoding its Content-Type names: protobuf for ' +
      'application/x-protobuf, OTLP/JSON with hex trace and span ids for application/json',
  },
  unauthorized: {
    httpStatus: 401,
    grpcCode: grpcCodes.UNAUTHENTICATED,
    retry: false,
    remedy: 'send the header Authorization: Bearer <API_KEY> with a valid API key',
  },
  tracing_not_enabled: {
    httpStatus: 403,
    grpcCode: grpcCodes.PERMISSION_DENIED,
    retry: false,
    remedy: 'this org is not in the tracing beta; request access on the Tracing page of the dashboard',
  },
  insufficient_scope: {
    httpStatus: 403,
    grpcCode: grpcCodes.PERMISSION_DENIED,
    retry: false,
    remedy:
      'the API key lacks the traces:write scope; log in through the command-line tool, or add the ' +
      'scope to the key under Settings',
  },
  payload_too_large: {
    httpStatus: 413,
    grpcCode: grpcCodes.RESOURCE_EXHAUSTED,
    retry: false,
    remedy:
      'send a smaller export batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE) with gzip compression ' +
      `(OTEL_EXPORTER_OTLP_COMPRESSION=gzip); a body may be ${limits.requestBytesSent / MiB} MiB as sent ` +
      `and ${limits.requestBytesUncompressed / MiB} MiB uncompressed`,
  },
  unsupported_media_type: {
    httpStatus: 415,
    grpcCode: grpcCodes.UNIMPLEMENTED,
    retry: false,
    remedy: 'send Content-Type application/x-protobuf or application/json, and Content-Encoding gzip or none',
  },
  tracing_unavailable: {
    httpStatus: 503,
    grpcCode: grpcCodes.UNAVAILABLE,
    retry: true,
    retryAfterSeconds: 5,
    remedy: 'nothing from this request was stored; retry after the delay in the Retry-After header',
  },
};

/** A detail longer than this is cut, so that a message never carries much of the input. */
const maxDetailLength = 300;

/** `<code>: <what to do>`, then what was wrong in parentheses when known. */
export function otlpErrorMessage(code: OtlpErrorCode, detail?: string): string {
  const base = `${code}: ${otlpErrors[code].remedy}`;
  if (detail === undefined || detail === '') return base;
  const cut = detail.length > maxDetailLength ? `${detail.slice(0, maxDetailLength)}…` : detail;
  return `${base} (${cut})`;
}

/** The API's one error type, with the OTLP table's status, message and Retry-After. */
export class OtlpError extends ApiError {
  readonly detail: string | undefined;

  constructor(code: OtlpErrorCode, detail?: string, headers: Record<string, string> = {}) {
    const row = otlpErrors[code];
    const retryAfter: Record<string, string> =
      row.retryAfterSeconds === undefined ? {} : { 'retry-after': String(row.retryAfterSeconds) };
    super(code, row.httpStatus, otlpErrorMessage(code, detail), undefined, { ...headers, ...retryAfter });
    this.name = 'OtlpError';
    this.detail = detail;
  }
}

const isOtlpCode = (code: string): code is OtlpErrorCode => code in otlpErrors;

/**
 * The gRPC code of an answer from outside the table, by its HTTP status (as grpc-gateway maps
 * them): the server's own (a path no route takes, a request line too long, a request too slow).
 */
const grpcCodesByStatus: Partial<Record<number, number>> = {
  400: grpcCodes.INVALID_ARGUMENT,
  404: grpcCodes.NOT_FOUND,
  408: grpcCodes.DEADLINE_EXCEEDED,
  414: grpcCodes.INVALID_ARGUMENT,
  422: grpcCodes.INVALID_ARGUMENT,
  431: grpcCodes.INVALID_ARGUMENT,
};

/**
 * The OTLP surface's error shape: a google.rpc.Status in the request's encoding, whose message is
 * the code, a colon, then what to do. Errors raised by shared hooks (auth) take the table's
 * remedy; when the request's own Content-Type was not understood, JSON, readable with curl.
 */
export const otlpErrorFormat: ErrorFormat = {
  contentType: (request) => otlpContentTypes[requestFormat(request)],
  body: (error, request) => {
    const row = isOtlpCode(error.code) ? otlpErrors[error.code] : undefined;
    const message =
      error instanceof OtlpError || !row
        ? `${error.code}: ${error.message}`
        : otlpErrorMessage(error.code as OtlpErrorCode);
    return encodeStatus(requestFormat(request), {
      code: row?.grpcCode ?? grpcCodesByStatus[error.status] ?? grpcCodes.INTERNAL,
      message: error instanceof OtlpError ? error.message : message,
    });
  },
};

function requestFormat(request: FastifyRequest): OtlpFormat {
  return parseContentType(request.headers['content-type']) ?? 'json';
}

/** A shared 503 (keys not yet read, a dependency away, draining) as this surface's retryable one. */
export function toOtlpError(error: unknown): unknown {
  return error instanceof Unavailable
    ? new OtlpError('tracing_unavailable', error.reason, error.headers)
    : error;
}
