// `ApiError` (spec 002, "Errors"): every refusal the package reports, whether the API sent it or
// the package refused an argument before sending anything. `code` is stable, to branch on; the
// message says what to do next. The API's body is `{ error: { code, message, param? } }`.

export interface ApiErrorFields {
  code: string;
  /** The HTTP status; for a refusal made before sending, the status the API gives the same code. */
  status: number;
  message: string;
  /** The field at fault, for `invalid_request`. */
  param?: string | undefined;
}

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly param: string | undefined;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.name = 'ApiError';
    this.code = fields.code;
    this.status = fields.status;
    this.param = fields.param;
  }
}

/** `code` of an answer that is not the API's error object (a proxy's page, an empty body). */
export const unexpectedAnswer = 'unexpected_answer';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The `ApiError` of a refused answer, from its status and its body (parsed JSON, or text). */
export function apiErrorFrom(status: number, body: unknown): ApiError {
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string') {
    const param = typeof error.param === 'string' ? error.param : undefined;
    return new ApiError({ code: error.code, status, message: error.message, param });
  }
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  return new ApiError({
    code: unexpectedAnswer,
    status,
    message: `The API answered ${status} without an error object${text ? `: ${text}` : ''}. Check \`baseUrl\`, then retry.`,
  });
}

/** An argument refused before any request is sent: the code, status and `param` the API would answer. */
export function invalidArgument(param: string, rule: string): ApiError {
  return new ApiError({
    code: 'invalid_request',
    status: 422,
    param,
    message: `Invalid \`${param}\`: ${rule}.`,
  });
}

/** A required argument left out, refused before any request is sent. */
export function missingArgument(param: string, rule: string): ApiError {
  return new ApiError({
    code: 'invalid_request',
    status: 422,
    param,
    message: `Missing \`${param}\`: ${rule}.`,
  });
}
