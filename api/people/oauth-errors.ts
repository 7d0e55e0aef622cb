import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, type ErrorFormat, errorHandler, toApiError } from '../errors.ts';
import { requestPartValidator } from '../request-validation.ts';

// The OAuth endpoints of the command-line login answer errors as RFC 6749 §5.2 says, so an OAuth
// client library reads them: `{ error, error_description }`, `error` being the ApiError's code.

export const oauthErrorBody = z.object({
  error: z.string().describe('RFC 6749 / RFC 8628 error code: authorization_pending, slow_down, …'),
  error_description: z.string().describe('what went wrong and what to do next'),
});

export const oauthErrorFormat: ErrorFormat = {
  contentType: () => 'application/json; charset=utf-8',
  body: (error) => {
    const body: z.output<typeof oauthErrorBody> = { error: error.code, error_description: error.message };
    return JSON.stringify(body);
  },
};

/** RFC 6749: errors of the token endpoint are 400. */
export const oauthError = (code: string, message: string) => new ApiError(code, 400, message);

/** Whatever was thrown, as RFC 6749 answers it: a request the API cannot read is 400 `invalid_request`, not 422. */
function asOauthError(error: unknown): ApiError {
  const known = toApiError(error);
  return known.status === 422 ? oauthError('invalid_request', known.message) : known;
}

/** The error handler of the OAuth endpoints. */
export const oauthErrorHandler = errorHandler(oauthErrorFormat, asOauthError);

/**
 * An OAuth endpoint's scope: form bodies (RFC 6749 clients send them) besides JSON, RFC 6749's
 * error shape, and a malformed request as 400 `invalid_request`, not the JSON surfaces' 422.
 */
export async function useOauthConventions(app: FastifyInstance): Promise<void> {
  await app.register(formbody);
  app.setErrorHandler(oauthErrorHandler);
  app.setValidatorCompiler(requestPartValidator((refused) => oauthError('invalid_request', refused.message)));
}
