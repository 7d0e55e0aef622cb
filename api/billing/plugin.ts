import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { parseInferenceBody } from '../../domain/inference/requests.ts';
import { createPgPool, type PgPool } from '../../platform/postgres.ts';
import { errorResponses } from '../error-responses.ts';
import { errorHandler, jsonErrorFormat } from '../errors.ts';
import { parsedInHandler, parsedOrRefused } from '../request-validation.ts';
import { billingSummary, readBillingSummary, summaryQuery } from './summary.ts';

/**
 * `GET /api/billing/summary`: the balance and the charges by model and day of the key's org
 * (the Billing page; the command-line tool's `limits --json`). Any live key may read it: it is
 * the org's own account, like `GET /api/me`.
 */
export const billingPlugin: FastifyPluginAsyncZod<{ pool?: PgPool }> = async (app, opts) => {
  // Its own pool unless given one; closed with the app.
  const pool = opts.pool ?? createPgPool(4);
  if (!opts.pool) app.addHook('onClose', () => pool.end());
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  // The query string is parsed in the handler, so a 422 names the field as the other surfaces do.
  app.setValidatorCompiler(parsedInHandler);
  app.get(
    '/summary',
    {
      onRequest: app.requireKeyOrSession(),
      schema: {
        tags: ['billing'],
        querystring: summaryQuery,
        response: { 200: billingSummary, ...errorResponses('billing') },
      },
    },
    async (request) => {
      const query = parsedOrRefused(parseInferenceBody(summaryQuery, request.query));
      return readBillingSummary(pool, request.principal!.orgId, query);
    },
  );
};
