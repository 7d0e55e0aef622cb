import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { httpRequestDuration, metricsRegistry } from './metrics.ts';
import type { Readiness } from './readiness.ts';

/**
 * Health, readiness and Prometheus metrics for any process with a Fastify server (the API, the
 * consumers, the jobs), plus a latency histogram per route. `/healthz` is liveness only (the
 * process answers); `/readyz` is 200 only when `readiness` says ready, and names each check.
 */
export const observabilityPlugin = fp<{ readiness: () => Promise<Readiness> }>(
  async (app: FastifyInstance, { readiness }) => {
    app.addHook('onResponse', async (request, reply) => {
      httpRequestDuration.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
    });
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const answer = await readiness();
      return reply.status(answer.status === 'ready' ? 200 : 503).send(answer);
    });
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
      reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
    );
  },
  { name: 'orrery-observability' },
);
