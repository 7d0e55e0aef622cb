import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

/**
 * For the surfaces whose bodies and query strings are parsed in the handler with the domain's
 * parsers, so a 422 names its field as the spec does (`messages[0].content`): their route
 * schemas only document the routes. Path parameters are validated as usual.
 */
export const parsedInHandler: FastifySchemaCompiler<z.ZodType> = (route) =>
  route.httpPart === 'body' || route.httpPart === 'querystring'
    ? (value) => ({ value })
    : validatorCompiler(route);
