import { describe, expect, it } from 'vitest';
import {
  invalidRequest,
  processLimitReached,
  SandboxError,
  sandboxErrors,
} from '../../../domain/sandboxes/errors.ts';

// The spec's "Errors" table, row by row.
const table = [
  ['no_desktop', 409, /start it/],
  ['desktop_outdated', 409, /create a new sandbox/],
  ['desktop_refused', 422, /read the accessibility tree .* again/],
  ['not_running', 409, /resume it/],
  ['process_limit', 409, /restart it with POST \/sandboxes\/:id\/restart/],
  ['template_not_ready', 409, /wait until it is built/],
  ['template_in_use', 409, /destroy or delete them first/],
  ['insufficient_ability', 403, /mint a token with `control`/],
  ['origin_refused', 403, /mint a token whose `origins` lists it/],
  ['sandbox_has_secrets', 409, /API key from a server/],
  ['invalid_request', 422, /fix the field named by `param`/],
  ['unauthorized', 401, /Send a valid API key/],
  ['not_found', 404, /check it/],
] as const;

describe('errors', () => {
  it('has exactly the rows of the spec', () => {
    expect(Object.keys(sandboxErrors).sort()).toEqual(table.map(([code]) => code).sort());
  });

  it.each(table)('%s is %i and says the next step', (code, status, nextStep) => {
    const error = new SandboxError(code);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(nextStep);
    expect(error.toBody()).toEqual({ error: { code, message: error.message } });
  });

  it('process_limit names the limit (issue 48)', () => {
    const error = processLimitReached(1024);
    expect([error.code, error.status]).toEqual(['process_limit', 409]);
    expect(error.message).toMatch(/^The sandbox is at its limit of 1,024 processes: .*restart it/);
  });

  it('invalid_request carries param', () => {
    expect(invalidRequest('count', 'Invalid `count`: send 1, 2 or 3.').toBody()).toEqual({
      error: { code: 'invalid_request', message: 'Invalid `count`: send 1, 2 or 3.', param: 'count' },
    });
  });
});
