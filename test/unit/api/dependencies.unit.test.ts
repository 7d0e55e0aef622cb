import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { dependenciesPlugin } from '../../../api/dependencies.ts';
import { type ApiError, Draining, errorHandler, jsonErrorFormat } from '../../../api/errors.ts';
import { otlpErrorFormat, toOtlpError } from '../../../api/otlp/errors.ts';
import { DependencyWatch } from '../../../platform/dependency-watch.ts';
import { freePort } from '../../harness/ports.ts';

// The shared refusals (api/dependencies.ts) on a bare server: a dependency away refuses at once,
// in the route's surface shape; a drain closes each connection after its answer, so kept-alive
// clients do not hold it open.

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serverWith(kafkaUp: () => boolean): Promise<FastifyInstance> {
  const server = Fastify({ return503OnClosing: false });
  server.setErrorHandler(errorHandler(jsonErrorFormat));
  const watch = new DependencyWatch(
    { postgres: async () => true, kafka: async () => kafkaUp(), clickhouse: async () => true },
    { intervalMs: 10_000, timeoutMs: 100 },
  );
  await watch.start();
  await server.register(dependenciesPlugin, { watch });
  await server.register(async (otlp) => {
    otlp.setErrorHandler(errorHandler(otlpErrorFormat, toOtlpError));
    otlp.post('/v1/traces', { onRequest: otlp.refuseWhileAway(['kafka']) }, async () => ({}));
  });
  return server;
}

const exportTo = (server: FastifyInstance) =>
  server.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': 'application/json' },
    payload: '{}',
  });

describe('refuseWhileAway', () => {
  it('answers 503 with Retry-After in the route’s own shape while a needed dependency is away', async () => {
    app = await serverWith(() => false);
    const refused = await exportTo(app);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json().message).toMatch(/^tracing_unavailable: .*\(Kafka cannot be reached just now/);
  });

  it('lets the request through while every needed dependency answers', async () => {
    app = await serverWith(() => true);
    const served = await exportTo(app);
    expect(served.statusCode).toBe(200);
  });
});

describe('while draining', () => {
  it('closes the connection after each answer, so the drain ends without waiting for idle clients', async () => {
    const server = await serverWith(() => true);
    app = server;
    let release = () => {};
    let entered = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    server.get('/slow', async () => {
      entered();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { ok: true };
    });
    // Runs after the plugin's own preClose hook (hooks run in the order added): the drain is on.
    server.addHook('preClose', async () => release());
    await server.listen({ host: '127.0.0.1', port: await freePort() });
    const { port } = server.server.address() as { port: number };
    const answer = new Promise<{ status?: number; connection?: string }>((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/slow', agent: false }, (response) => {
        response.resume();
        resolve({ status: response.statusCode, connection: response.headers.connection });
      });
      outgoing.setHeader('connection', 'keep-alive');
      outgoing.on('error', reject);
      outgoing.end();
    });
    await inHandler;
    const closed = server.close();
    expect(await answer).toEqual({ status: 200, connection: 'close' });
    await closed;
    app = undefined;
  });

  it('writes a request refused while draining as each surface’s 503, closing its connection', () => {
    const otlp = toOtlpError(new Draining()) as ApiError;
    expect(otlp.status).toBe(503);
    expect(otlp.headers).toMatchObject({ 'retry-after': '5', connection: 'close' });
    expect(otlp.message).toMatch(/^tracing_unavailable: .*shutting down/);
  });
});
