import { describe, expect, it } from 'vitest';
import { inferenceError, inferenceErrors } from '../../../domain/inference/errors.ts';

describe('Errors table', () => {
  it.each([
    { code: 'unauthorized', status: 401, type: 'authentication_error' },
    { code: 'insufficient_credit', status: 402, type: 'billing_error' },
    { code: 'insufficient_scope', status: 403, type: 'permission_error' },
    { code: 'model_not_found', status: 404, type: 'not_found_error' },
    { code: 'invalid_request', status: 422, type: 'invalid_request_error' },
    { code: 'upstream_unavailable', status: 502, type: 'api_error' },
    { code: 'not_configured', status: 503, type: 'api_error' },
  ] as const)('$code → $status $type', ({ code, status, type }) => {
    const row = inferenceErrors[code];
    expect(row.status).toBe(status);
    expect(row.type).toBe(type);
    expect(inferenceError(code)).toEqual({
      status,
      body: { error: { code, type, message: row.message, param: null } },
    });
  });

  it('has exactly the codes of the spec', () => {
    expect(Object.keys(inferenceErrors)).toHaveLength(7);
  });

  it('carries the param and message of an invalid request', () => {
    expect(
      inferenceError('invalid_request', {
        param: 'item.tool',
        message: '`item.tool` is required: send it as a string.',
      }),
    ).toEqual({
      status: 422,
      body: {
        error: {
          code: 'invalid_request',
          type: 'invalid_request_error',
          message: '`item.tool` is required: send it as a string.',
          param: 'item.tool',
        },
      },
    });
  });

  it.each([
    { code: 'unauthorized', says: 'Settings' },
    { code: 'insufficient_credit', says: 'Billing page' },
    { code: 'insufficient_scope', says: 'inference:invoke' },
    { code: 'upstream_unavailable', says: 'nothing was charged' },
  ] as const)('the $code message tells what to do ($says)', ({ code, says }) => {
    expect(inferenceErrors[code].message).toContain(says);
  });
});
