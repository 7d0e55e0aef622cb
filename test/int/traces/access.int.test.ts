import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  dayAt,
  get,
  type OrgWithKey,
  orgWithKey,
  publish,
  spansReceived,
  untilTraceCount,
} from './fixtures.ts';

// Who may read what: a `traces:write` key, only its own org's traces; and what a bad query gets.

let platform: TestPlatform;
let owner: OrgWithKey;
let stranger: OrgWithKey;
let trace: ReturnType<typeof agentTrace>;

const routes = (traceId: string, spanId: string) => [
  '/api/traces',
  `/api/traces/${traceId}`,
  `/api/traces/${traceId}/spans/${spanId}`,
  '/api/analytics/usage',
  '/api/analytics/latency',
  '/api/analytics/errors',
];

beforeAll(async () => {
  platform = await startTestPlatform();
  owner = await orgWithKey(platform);
  stranger = await orgWithKey(platform);
  trace = agentTrace(dayAt(1, 12));
  await publish(platform, [spansReceived(owner.orgId, trace.traceId, trace.spans)]);
  await untilTraceCount(platform, owner.key, 1);
});
afterAll(() => platform.stop());

describe('keys', () => {
  it('401 unauthorized without a key or with an unknown one, on every route', async () => {
    for (const url of routes(trace.traceId, trace.root.spanId)) {
      for (const key of [undefined, 'orr_not-a-key']) {
        const { status, body } = await get(platform, key, url);
        expect({ url, status, body }).toMatchObject({
          url,
          status: 401,
          body: { error: { code: 'unauthorized' } },
        });
      }
    }
  });

  it('403 insufficient_scope with a key lacking traces:write, on every route', async () => {
    const inference = await orgWithKey(platform, ['inference:invoke', 'sandboxes:write']);
    for (const url of routes(trace.traceId, trace.root.spanId)) {
      const { status, body } = await get(platform, inference.key, url);
      expect({ url, status, body }).toMatchObject({
        url,
        status: 403,
        body: { error: { code: 'insufficient_scope' } },
      });
    }
  });
});

describe('orgs', () => {
  it("404 not_found for another org's trace and span, and nothing of it in lists or analytics", async () => {
    const detail = await get(platform, stranger.key, `/api/traces/${trace.traceId}`);
    expect(detail.status).toBe(404);
    expect(detail.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    const one = await get(platform, stranger.key, `/api/traces/${trace.traceId}/spans/${trace.root.spanId}`);
    expect(one.status).toBe(404);
    expect(one.body).toMatchObject({ error: { code: 'not_found' } });
    for (const url of routes(trace.traceId, trace.root.spanId).filter(
      (route) => !route.includes('/traces/'),
    )) {
      const { status, body } = await get<{ data: unknown[] }>(platform, stranger.key, url);
      expect(status).toBe(200);
      expect(body.data).toEqual([]);
    }
    // The owner does see it, so the 404s above are about the org.
    expect((await get(platform, owner.key, `/api/traces/${trace.traceId}`)).status).toBe(200);
  });

  it('404 not_found for a trace nobody sent', async () => {
    const { status } = await get(platform, owner.key, `/api/traces/${'e'.repeat(32)}`);
    expect(status).toBe(404);
  });
});

describe('bad query values', () => {
  it.each([
    ['/api/traces?limit=0', 'limit'],
    ['/api/traces?limit=101', 'limit'],
    ['/api/traces?limit=many', 'limit'],
    ['/api/traces?cursor=not-ours', 'cursor'],
    ['/api/traces?from=last%20week', 'from'],
    ['/api/traces?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'to'],
    ['/api/traces?kind=llm', 'kind'],
    ['/api/traces?session_id=', 'session_id'],
    ['/api/analytics/usage?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'from'],
    ['/api/analytics/latency?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'to'],
    ['/api/analytics/errors?to=soon', 'to'],
  ])('422 invalid_request for %s, naming %s', async (url, param) => {
    const { status, body } = await get<{ error: { code: string; param: string; message: string } }>(
      platform,
      owner.key,
      url,
    );
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'invalid_request', param });
    expect(body.error.message).toMatch(new RegExp(`^${param}: `));
  });

  it('says the analytics range is bounded to 31 days', async () => {
    const { body } = await get<{ error: { message: string } }>(
      platform,
      owner.key,
      '/api/analytics/usage?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z',
    );
    expect(body.error.message).toContain('at most 31 days');
  });
});

describe('the OpenAPI document', () => {
  it('describes every route with its query parameters', async () => {
    const response = await platform.api.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    for (const path of [
      '/api/traces',
      '/api/traces/{traceId}',
      '/api/traces/{traceId}/spans/{spanId}',
      '/api/analytics/usage',
      '/api/analytics/latency',
      '/api/analytics/errors',
    ])
      expect(document.paths[path]?.get, path).toBeDefined();
    const names = document.paths['/api/traces']?.get?.parameters?.map((parameter) => parameter.name);
    expect(names).toEqual(
      expect.arrayContaining(['from', 'to', 'session_id', 'model', 'kind', 'name', 'limit', 'cursor']),
    );
    expect(JSON.stringify(document)).not.toContain('#/components/schemas/schema');
  });
});
