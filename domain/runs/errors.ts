// The run routes' refusals as data (issue 16; spec 002, "Errors": `{ error: { code, message,
// param? } }`, the code stable, the message stating the next step). `invalid_request`,
// `unauthorized` and `not_found` are the sandbox surface's; the rest are the runs' own.

export const runErrors = {
  invalid_request: {
    status: 422,
    message: 'A field is missing or out of range: fix the field named by `param` and retry.',
  },
  insufficient_credit: {
    status: 402,
    message:
      "The org's credit is used up, so nothing was placed or charged: add credit, then place the run again.",
  },
  size_unavailable: {
    status: 409,
    message:
      'This size is not available on this deployment: choose one that GET /api/catalog lists as available.',
  },
  not_found: {
    status: 404,
    message: 'No run with this name or id in the org: check it, or list runs with GET /api/runs.',
  },
  // An Idempotency-Key names one request (domain/idempotency.ts): reused for another, it is
  // refused rather than guessed at, as the titles' and previews' are.
  idempotency_key_reused: {
    status: 422,
    message:
      'This Idempotency-Key was first used with another request (another route or body) in the last 24 hours: send a new key with a new request.',
  },
  not_finished: {
    status: 409,
    message:
      'The run has not finished: its result is read once it ends (follow it with GET /api/runs/:name/output?follow=true).',
  },
  no_result: {
    status: 404,
    message:
      'The run wrote no result: a run that writes a JSON object to the file at $ORRERY_RESULT_PATH before it exits has one.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type RunErrorCode = keyof typeof runErrors;

/** A refusal from the run domain; the API turns it into the status and body of its code. */
export class RunError extends Error {
  readonly status: number;
  readonly param: string | undefined;

  constructor(
    readonly code: RunErrorCode,
    options: { message?: string; param?: string } = {},
  ) {
    super(options.message ?? runErrors[code].message);
    this.name = 'RunError';
    this.status = runErrors[code].status;
    this.param = options.param;
  }
}
