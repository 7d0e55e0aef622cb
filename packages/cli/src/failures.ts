// What ends the tool early, with the exit code of spec 002's table: 2 for a mistyped command (the
// parser's, and a flag's value it cannot use), 1 for everything that was asked and could not be
// done (the API refused, it could not be reached, no key). The message goes to stderr.
//
// `run` and `logs -f` exit with the run's own exit code (run-object.ts); a run that ended without one
// (it could not start, it was stopped, it reached its ceiling) is 1. The one code beyond these is
// 130, the shell's code for an interrupt (128 + SIGINT): Ctrl-C detached the tool from a run that
// goes on.

export const exitCodes = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export class Failure extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = exitCodes.failed) {
    super(message);
    this.name = 'Failure';
    this.exitCode = exitCode;
  }
}

/** A mistyped command, flag or flag value: exit 2, the message naming it. */
export class UsageFailure extends Failure {
  constructor(message: string) {
    super(message, exitCodes.usage);
    this.name = 'UsageFailure';
  }
}

/** The API refused: its `code`, `message` and `param` (`{ error: { code, message, param? } }`). */
export class ApiRefused extends Failure {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;

  constructor(fields: { status: number; code: string; message: string; param?: string | undefined }) {
    super(fields.message);
    this.name = 'ApiRefused';
    this.status = fields.status;
    this.code = fields.code;
    this.param = fields.param;
  }
}
