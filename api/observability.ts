import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { httpRequestDuration, metricsRegistry } from '../platform/metrics.ts';

/**
 * Health, readiness and Prometheus metrics for any process with a Fastify server (the API and
 * the consumers), plus a latency histogram per route.
 */
export const observabilityPlugin = fp<{ ready: () => boolean | Promise<boolean> }>(
  async (app: FastifyInstance, { ready }) => {
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
      const isReady = await ready();
      return reply.status(isReady ? 200 : 503).send({ status: isReady ? 'ready' : 'starting' });
    });
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
      reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
    );
  },
  { name: 'orrery-observability' },
);
