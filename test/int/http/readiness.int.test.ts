import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg } from '../../../api/admin/commands.ts';
import { buildApi } from '../../../api/app.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { grpcCodes } from '../../../api/otlp/errors.ts';
import { logger } from '../../../platform/logger.ts';
import { createPgPool } from '../../../platform/postgres.ts';
import {
  deadKafkaProducer,
  eventually,
  startTestPlatform,
  type TestPlatform,
} from '../../harness/platform.ts';
import { exportSpans, llmSpan, tracingOrg } from '../../harness/tracing.ts';

// Startup and readiness that tell the truth (issue 11, item 2): a key is never called invalid
// before the org stream has been read, and /readyz names the dependency that is missing.

let platform: TestPlatform;
let keysCaughtUp = false;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: true, keysCaughtUp: () => keysCaughtUp });
});
afterAll(() => platform.stop());

/** A key the directory has already applied: only the API's "caught up" flag holds it back. */
async function keyInDirectory(key: string) {
  await eventually(
    async () => platform.directory.principal(hashApiKey(key)),
    15_000,
    'the key in the directory',
  );
}

const get = (api: FastifyInstance, url: string, key?: string) =>
  api.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('before the keys are read', () => {
  it('answers a valid key 503 with Retry-After in each surface’s shape, and serves it once caught up', async () => {
    keysCaughtUp = false;
    const { key: tracingKey } = await tracingOrg(platform);
    const org = await createOrg(platform.admin, 'Readiness Org');
    const { key } = await createApiKey(platform.admin, org.orgId, ['sandboxes:write', 'inference:invoke']);
    await keyInDirectory(tracingKey);
    await keyInDirectory(key);

    for (const format of ['protobuf', 'json'] as const) {
      const otlp = await exportSpans(platform.api, { spans: [llmSpan()], key: tracingKey, format });
      expect(otlp.status).toBe(503);
      expect(otlp.headers['retry-after']).toBe('5');
      expect(otlp.body.code).toBe(grpcCodes.UNAVAILABLE);
      expect(otlp.body.message).toMatch(
        /^tracing_unavailable: nothing from this request was stored.*loading its keys/,
      );
    }

    const sandboxes = await get(platform.api, '/api/sandboxes', key);
    expect(sandboxes.statusCode).toBe(503);
    expect(sandboxes.headers['retry-after']).toBe('5');
    expect(sandboxes.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringMatching(/loading its keys/) },
    });

    const me = await get(platform.api, '/api/me', key);
    expect([me.statusCode, me.headers['retry-after'], me.json().error.code]).toEqual([
      503,
      '5',
      'unavailable',
    ]);

    const title = await platform.api.inject({
      method: 'POST',
      url: '/api/inference/scribe/v1/titles',
      headers: { authorization: `Bearer ${key}` },
      payload: { messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(title.statusCode).toBe(503);
    expect(title.headers['retry-after']).toBe('5');
    expect(title.json()).toEqual({
      error: {
        code: 'usage_unavailable',
        type: 'api_error',
        message: expect.stringMatching(/loading its keys/),
        param: null,
      },
    });

    // A request without a key cannot become valid by waiting: still 401.
    expect((await get(platform.api, '/api/sandboxes')).statusCode).toBe(401);
    const ready = await get(platform.api, '/readyz');
    expect([ready.statusCode, ready.json()]).toEqual([
      503,
      { status: 'starting', checks: { keys: 'starting', postgres: 'ok', kafka: 'ok' } },
    ]);

    keysCaughtUp = true;
    expect((await exportSpans(platform.api, { spans: [llmSpan()], key: tracingKey })).status).toBe(200);
    expect((await get(platform.api, '/api/sandboxes', key)).statusCode).toBe(200);
    expect((await get(platform.api, '/api/me', key)).statusCode).toBe(200);
  });
});

describe('/readyz', () => {
  it('is 200 with every check ok on the healthy stack, and /healthz is liveness only', async () => {
    keysCaughtUp = true;
    const ready = await get(platform.api, '/readyz');
    expect([ready.statusCode, ready.json()]).toEqual([
      200,
      { status: 'ready', checks: { keys: 'caught_up', postgres: 'ok', kafka: 'ok' } },
    ]);
    const health = await get(platform.api, '/healthz');
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('is 503 naming postgres when the API’s pool cannot reach Postgres, within the probe’s bound', async () => {
    const deadPool = createPgPool(1, 'postgres://orrery:orrery@127.0.0.1:1/orrery');
    const api = await buildApi({
      logger,
      directory: platform.directory,
      producer: platform.producer,
      pool: deadPool,
      ready: () => true,
    });
    try {
      const started = performance.now();
      const ready = await get(api, '/readyz');
      expect(performance.now() - started).toBeLessThan(2_000);
      expect([ready.statusCode, ready.json()]).toEqual([
        503,
        { status: 'not_ready', checks: { keys: 'caught_up', postgres: 'unreachable', kafka: 'ok' } },
      ]);
      // /healthz does not depend on Postgres: the process is alive.
      expect((await get(api, '/healthz')).statusCode).toBe(200);
    } finally {
      await api.close();
      await deadPool.end();
    }
  });

  it('is 503 naming kafka when the producer’s brokers cannot be reached, within the probe’s bound', async () => {
    const deadKafka = await deadKafkaProducer();
    const api = await buildApi({
      logger,
      directory: platform.directory,
      producer: deadKafka,
      pool: platform.pool,
      ready: () => true,
    });
    try {
      const started = performance.now();
      const ready = await get(api, '/readyz');
      expect(performance.now() - started).toBeLessThan(2_000);
      expect([ready.statusCode, ready.json()]).toEqual([
        503,
        { status: 'not_ready', checks: { keys: 'caught_up', postgres: 'ok', kafka: 'unreachable' } },
      ]);
    } finally {
      await api.close();
      await deadKafka.disconnect().catch(() => undefined);
    }
  });
});
