import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inTransaction, type PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSpanEvents } from '../../producers/spans.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';
import { lockOrg, recordDeletion } from './ledger.ts';

const deletedAnswer = z.object({ data: z.object({ trace_id: z.string(), deleted: z.literal(true) }) });

/**
 * `DELETE /api/traces/:traceId`: forgets the trace in the admission ledger (its spans are then
 * refused for 24 hours, 001 "Refused spans") and publishes TraceDeleted, which removes its spans
 * from the read model. Committed only once Kafka acknowledged, like an ingest.
 */
export const traceDeletionPlugin: FastifyPluginAsyncZod<{ pool: PgPool; producer: EventProducer }> = async (
  app,
  { pool, producer },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.delete(
    '/traces/:traceId',
    {
      onRequest: app.requireKey('traces:write'),
      schema: {
        tags: ['traces'],
        params: z.object({
          traceId: z.string().regex(/^[0-9a-f]{32}$/, 'a trace id is 32 lowercase hex digits'),
        }),
        response: { 200: deletedAnswer },
      },
    },
    async (request) => {
      const { orgId } = request.principal!;
      const { traceId } = request.params;
      const now = new Date();
      const known = await inTransaction(pool, async (client) => {
        await lockOrg(client, orgId);
        if (!(await recordDeletion(client, orgId, traceId, now))) return false;
        await publishSpanEvents(producer, [
          { type: 'TraceDeleted', eventId: randomUUID(), orgId, traceId, occurredAt: now },
        ]);
        return true;
      });
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
