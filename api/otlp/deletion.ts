import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../error-responses.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';
import type { AdmissionQueue } from './admission-queue.ts';

const deletedAnswer = z.object({ data: z.object({ trace_id: z.string(), deleted: z.literal(true) }) });

/**
 * `DELETE /api/traces/:traceId`: publishes TraceDeleted, which removes the trace's spans from the
 * read model, then forgets the trace in the admission ledger (its spans are then refused for 24
 * hours, 001 "Refused spans"); in the org's admission queue, between its span requests.
 */
export const traceDeletionPlugin: FastifyPluginAsyncZod<{ admissions: AdmissionQueue }> = async (
  app,
  { admissions },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.delete(
    '/traces/:traceId',
    {
      onRequest: [app.requireKey('traces:write'), app.refuseWhileAway(['postgres', 'kafka'])],
      schema: {
        tags: ['traces'],
        params: z.object({
          traceId: z.string().regex(/^[0-9a-f]{32}$/, 'a trace id is 32 lowercase hex digits'),
        }),
        response: { 200: deletedAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const { orgId } = request.principal!;
      const { traceId } = request.params;
      const known = await admissions.deleteTrace(orgId, traceId);
      if (!known)
        throw new ApiError(
          'not_found',
          404,
          `No trace ${traceId} in this org; list traces with GET /api/traces.`,
        );
      return { data: { trace_id: traceId, deleted: true as const } };
    },
  );
};
