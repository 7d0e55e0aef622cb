// The Errors table (spec 000, Errors) as data: code → status, `type` and a default message
// that tells the caller what to do next. The spec fixes `type` only for `invalid_request`
// (`invalid_request_error`); the others follow OpenAI's and Anthropic's names, so clients
// that branch on `type` for those APIs read ours the same way.

export interface ErrorRow {
  status: number;
  type: string;
  message: string;
}

export const inferenceErrors = {
  unauthorized: {
    status: 401,
    type: 'authentication_error',
    message:
      'Send a valid API key as Authorization: Bearer <API_KEY>. Create one under Settings in the dashboard; a revoked key no longer works.',
  },
  insufficient_credit: {
    status: 402,
    type: 'billing_error',
    message:
      "Your organization's credit is used up, so the model was not asked. Add credit on the Billing page, then retry.",
  },
  insufficient_scope: {
    status: 403,
    type: 'permission_error',
    message:
      'This API key lacks the inference:invoke scope. Create a key with it under Settings in the dashboard; keys from the command-line login do not hold it.',
  },
  model_not_found: {
    status: 404,
    type: 'not_found_error',
    message: 'This model does not write titles and previews. Check the model name in the path.',
  },
  invalid_request: {
    status: 422,
    type: 'invalid_request_error',
    message:
      'A field is missing or has the wrong type. Fix the field named in param and send the request again.',
  },
  upstream_unavailable: {
    status: 502,
    type: 'api_error',
    message: 'The model did not answer, and nothing was charged. Retry the request in a few seconds.',
  },
  not_configured: {
    status: 503,
    type: 'api_error',
    message:
      'This model is not deployed where the service can reach it. Try another model, or contact support.',
  },
} as const satisfies Record<string, ErrorRow>;

export type InferenceErrorCode = keyof typeof inferenceErrors;

/** The body shape shared by all models (spec 000, Errors). */
export interface InferenceErrorBody {
  error: { code: InferenceErrorCode; type: string; message: string; param: string | null };
}

/** Status and body of an error; `message` and `param` override the table's defaults. */
export function inferenceError(
  code: InferenceErrorCode,
  details: { message?: string; param?: string } = {},
): { status: number; body: InferenceErrorBody } {
  const row: ErrorRow = inferenceErrors[code];
  return {
    status: row.status,
    body: {
      error: { code, type: row.type, message: details.message ?? row.message, param: details.param ?? null },
    },
  };
}
