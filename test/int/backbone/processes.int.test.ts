import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: false });
});
afterAll(() => platform.stop());

it('serves health, readiness, Prometheus metrics and the OpenAPI 3.1 document', async () => {
  expect((await platform.api.inject('/healthz')).json()).toEqual({ status: 'ok' });
  const ready = await platform.api.inject('/readyz');
  expect([ready.statusCode, ready.json()]).toEqual([
    200,
    { status: 'ready', checks: { keys: 'caught_up', postgres: 'ok', kafka: 'ok' } },
  ]);
  await platform.api.inject('/api/me');
  const metrics = (await platform.api.inject('/metrics')).body;
  expect(metrics).toMatch(/orrery_http_request_duration_seconds_bucket\{[^}]*route="\/api\/me"/);
  // One registry holds the process's own metrics and Node's defaults: each must be there.
  expect(metrics).toMatch(/^# TYPE orrery_otlp_ingest_phase_seconds histogram$/m);
  expect(metrics).toMatch(/^process_cpu_user_seconds_total /m);
  const openapi = (await platform.api.inject('/openapi.json')).json();
  expect(openapi.openapi).toBe('3.1.0');
  expect(Object.keys(openapi.paths)).toContain('/api/me');
  expect(openapi.paths['/api/me'].get.responses['200']).toBeDefined();
  // The OTLP route, written from the spec's response table: both encodings, every status.
  const otlp = openapi.paths['/api/otlp/v1/traces'].post;
  expect(Object.keys(otlp.requestBody.content).sort()).toEqual([
    'application/json',
    'application/x-protobuf',
  ]);
  expect(Object.keys(otlp.responses).sort()).toEqual([
    '200',
    '400',
    '401',
    '403',
    '408',
    '413',
    '415',
    '431',
    '503',
  ]);
});
