// The spec's "Errors" table as data: each code's status and a default message that states the
// next step. Body on the wire: `{ error: { code, message } }`, plus `param` for invalid_request.

export const sandboxErrors = {
  no_desktop: {
    status: 409,
    message:
      'The desktop is not running: start it with POST /sandboxes/:id/desktop {"action":"start"}, then retry.',
  },
  desktop_outdated: {
    status: 409,
    message: 'This sandbox was created before this desktop action existed: create a new sandbox to use it.',
  },
  desktop_refused: {
    status: 422,
    message:
      'The desktop could not do this action: read the accessibility tree or take a screenshot again, then retry.',
  },
  not_running: {
    status: 409,
    message: 'The sandbox is stopped: resume it with POST /sandboxes/:id/resume, then retry.',
  },
  process_limit: {
    status: 409,
    message:
      'The sandbox is at its process limit: end some of its processes, or restart it with POST /sandboxes/:id/restart to end them all and keep its files, then retry.',
  },
  template_not_ready: {
    status: 409,
    message: 'The template is not ready: wait until it is built (its status `ready`), then retry.',
  },
  template_in_use: {
    status: 409,
    message: 'Sandboxes or other templates stand on this template: destroy or delete them first.',
  },
  insufficient_ability: {
    status: 403,
    message: 'This token has the `view` ability only: mint a token with `control` for this method.',
  },
  origin_refused: {
    status: 403,
    message: "This page's origin is not in the token's origins: mint a token whose `origins` lists it.",
  },
  sandbox_has_secrets: {
    status: 409,
    message:
      'The sandbox has secrets, so sandbox tokens are refused: call the API with an API key from a server instead.',
  },
  invalid_request: {
    status: 422,
    message: 'A field is missing or out of range: fix the field named by `param` and retry.',
  },
  unauthorized: {
    status: 401,
    message:
      'Send a valid API key, or an unexpired sandbox token for this sandbox, as `Authorization: Bearer <token>`.',
  },
  not_found: {
    status: 404,
    message: 'No sandbox with this id or name in the org: check it, or list sandboxes with GET /sandboxes.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type SandboxErrorCode = keyof typeof sandboxErrors;

export interface SandboxErrorBody {
  error: { code: SandboxErrorCode; message: string; param?: string };
}

/** A refusal from the sandbox domain; the API turns it into the status and body of its code. */
export class SandboxError extends Error {
  readonly status: number;
  readonly param: string | undefined;

  constructor(
    readonly code: SandboxErrorCode,
    options: { message?: string; param?: string } = {},
  ) {
    super(options.message ?? sandboxErrors[code].message);
    this.name = 'SandboxError';
    this.status = sandboxErrors[code].status;
    this.param = options.param;
  }

  toBody(): SandboxErrorBody {
    const { code, message, param } = this;
    return { error: param === undefined ? { code, message } : { code, message, param } };
  }
}

/** A change Kafka did not acknowledge, or the read model did not show in time (503 `unavailable`). */
export const changeNotRecordedMessage =
  'The change could not be recorded right now: retry in a few seconds (a retry is safe).';

/**
 * A lost sandbox (its host gone for good, issue 47) is, in the spec's terms, a stopped sandbox
 * that cannot be resumed: `not_running` (409), with words that say so.
 */
export const sandboxLost = () =>
  new SandboxError('not_running', {
    message:
      'The sandbox was lost with its sandbox host (the machine is gone, and its files and processes with it): it cannot be resumed. Destroy it and create a new sandbox.',
  });

/**
 * At its task limit (cgroup `pids.max`, sandbox-runtime/limits.ts) nothing can start inside a
 * sandbox, exec and files included (issue 48): `process_limit` (409), with the limit and the way
 * out. A restart ends every process from outside, so it works at the limit.
 */
export const processLimitReached = (limit: number) =>
  new SandboxError('process_limit', {
    message: `The sandbox is at its limit of ${limit.toLocaleString('en-US')} processes: end some, or restart it with POST /sandboxes/:id/restart to end them all and keep its files, then retry.`,
  });

export function invalidRequest(param: string, message: string): SandboxError {
  return new SandboxError('invalid_request', { param, message });
}
