import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { type ParseResult, parseRequest, type Wording } from '../domain/params.ts';
import { ApiError } from './errors.ts';

// The API's one request-validation convention: every request part is parsed with its zod schema
// by domain/params.ts's `parseRequest`, and a refusal is the one 422 `invalid_request` naming the
// field (`param`), which each surface's ErrorFormat writes in its own shape. Parts a surface
// parses in its handler (with its spec's wording) go through `parsedOrRefused`; the others
// through Fastify's validator, `validateRequestPart`, in the plain wording below.

/** The 422 of every surface: a request part refused, naming the field at fault. */
export function invalidRequest(refused: { param?: string; message: string }): ApiError {
  return new ApiError('invalid_request', 422, refused.message, refused.param);
}

/** The parsed value, or the 422 naming the field at fault. */
export function parsedOrRefused<T>(result: ParseResult<T>): T {
  if (result.ok) return result.value;
  throw invalidRequest(result);
}

/** Parts checked before the handler: zod's own message after the field (`limit: Too big: …`). */
const plainWording: Wording = {
  body: 'body: invalid; fix it and retry.',
  issue: (issue, { param }) => `${param || 'body'}: ${issue.message}; fix it and retry.`,
};

/** A validator for route parts whose refusal is `refuse`'s error. */
export function requestPartValidator(
  refuse: (refused: { param?: string; message: string }) => ApiError,
): FastifySchemaCompiler<z.ZodType> {
  return ({ schema }) =>
    (data) => {
      const parsed = parseRequest(schema, data, plainWording);
      if (parsed.ok) return { value: parsed.value };
      return { error: refuse({ param: parsed.param || undefined, message: parsed.message }) };
    };
}

/** Fastify's validator for every route part: the value, or the 422 (no `param` for the whole part). */
export const validateRequestPart = requestPartValidator(invalidRequest);

/**
 * For the surfaces whose bodies, query strings and headers are parsed in the handler with the
 * domain's parsers, so a 422 names its field as the spec does (`messages[0].content`,
 * `Idempotency-Key`): their route schemas only document the routes. Path parameters are
 * validated as usual.
 */
export const parsedInHandler: FastifySchemaCompiler<z.ZodType> = (route) =>
  route.httpPart === 'body' || route.httpPart === 'querystring' || route.httpPart === 'headers'
    ? (value) => ({ value })
    : validateRequestPart(route);
