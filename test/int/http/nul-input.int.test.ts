import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxRoutes } from '../../../domain/sandboxes/routes.ts';
import { eventually } from '../../harness/platform.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';
import { newTraceId, publish, span, spansReceived } from '../traces/fixtures.ts';

// A caller's text holding U+0000 (NUL) never reaches a 500 (issue 11, item 5). Postgres refuses
// NUL in text and jsonb, and a process's arguments cannot hold one, so every field that reaches
// them is refused at the edge (domain/text.ts) with its surface's 422 `invalid_request` naming it:
// in the path, the query and the JSON body (as `\u0000`). ClickHouse stores NUL (a span's
// attributes may hold one), so the filters read from it take NUL and find what holds it.

let api: SandboxApi;
let sandboxId: string;
let tracesKey: string;
let inferenceKey: string;
beforeAll(async () => {
  api = await givenSandboxApi();
  sandboxId = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data.id;
  tracesKey = (await api.newOrg('NUL traces', ['traces:write'])).key;
  inferenceKey = (await api.newOrg('NUL inference', ['inference:invoke'])).key;
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

/** The sandbox, query and billing surfaces' 422: `{ error: { code, message, param } }`. */
function expectInvalid(answer: LightMyRequestResponse, param: string) {
  expect(answer.statusCode, answer.body).toBe(422);
  const { error } = answer.json() as { error: Record<string, unknown> };
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param']);
  expect(error).toMatchObject({ code: 'invalid_request', param });
  expect(error.message).toEqual(expect.any(String));
}

describe('the sandbox surface (Postgres)', () => {
  const withId = Object.entries(sandboxRoutes).filter(([, route]) => route.path.includes(':id'));

  it.each(withId)('%s refuses a NUL in `:id` with 422 on `id`', async (_name, route) => {
    const url = `/api${route.path.replace(':id', 'sb-%00')}${route.path.endsWith('/files') ? '?path=/x' : ''}`;
    const body = route.method === 'PUT' ? Buffer.from('x') : route.method === 'GET' ? undefined : {};
    expectInvalid(await api.call(route.method, url, { body }), 'id');
  });

  it('refuses it in the admin route’s `:id` too', async () => {
    expectInvalid(await api.call('POST', '/api/admin/sandboxes/%00/secrets'), 'id');
  });

  it('refuses a NUL in a metadata filter of the list (the query)', async () => {
    expectInvalid(await api.call('GET', '/api/sandboxes?metadata[team]=%00'), 'metadata.team');
    expectInvalid(await api.call('GET', '/api/sandboxes?metadata[team]=a%00b&all=true'), 'metadata.team');
  });

  it.each([
    ['metadata', { metadata: { team: 'a\u0000' } }, 'metadata.team'],
    ['idempotency_key', { idempotency_key: 'key\u0000' }, 'idempotency_key'],
    ['name', { name: 'a\u0000b' }, 'name'],
  ])('create refuses a NUL in %s (the JSON body)', async (_field, body, param) => {
    expectInvalid(await api.call('POST', '/api/sandboxes', { body }), param);
  });

  it('update, fork, exec, files, tokens and the desktop refuse a NUL in their bodies and queries', async () => {
    const on = (path: string) => `/api/sandboxes/${sandboxId}${path}`;
    expectInvalid(
      await api.call('PATCH', on(''), { body: { metadata: { team: '\u0000' } } }),
      'metadata.team',
    );
    expectInvalid(await api.call('POST', on('/fork'), { body: { name: '\u0000' } }), 'name');
    expectInvalid(await api.call('POST', on('/exec'), { body: { command: 'echo \u0000' } }), 'command');
    expectInvalid(
      await api.call('POST', on('/exec'), { body: { command: 'env', env: { TEAM: 'a\u0000' } } }),
      'env.TEAM',
    );
    expectInvalid(await api.call('GET', on('/files?path=/root/a%00')), 'path');
    expectInvalid(
      await api.call('POST', on('/desktop/input'), { body: { action: 'type', text: 'a\u0000b' } }),
      'text',
    );
    expectInvalid(
      await api.call('POST', on('/desktop/accessibility'), {
        body: { ref: 'e1', action: 'set-text', text: '\u0000' },
      }),
      'text',
    );
    expectInvalid(
      await api.call('POST', on('/tokens'), {
        body: { abilities: ['view'], origins: ['https://a\u0000.example'] },
      }),
      'origins[0]',
    );
  });

  it('still answers as before once the NUL is gone: the sandbox is unchanged', async () => {
    const sandbox = await api.call('GET', `/api/sandboxes/${sandboxId}`);
    expect(sandbox.statusCode).toBe(200);
    expect(sandbox.json().data.metadata).toEqual({});
    expect((await api.call('GET', '/api/sandboxes?metadata[team]=a')).json().data).toEqual([]);
  });
});

describe('the query surface and the request log (ClickHouse)', () => {
  it('takes NUL in a trace filter, and finds the trace whose session id holds one', async () => {
    const org = await api.newOrg('NUL session', ['traces:write']);
    const traceId = newTraceId();
    await publish(api.platform, [
      spansReceived(org.orgId, traceId, [span(traceId, { sessionId: 'chat\u0000one' })]),
    ]);
    const found = await eventually(
      async () => {
        const answer = await api.call('GET', '/api/traces?session_id=chat%00one', { bearer: org.key });
        expect(answer.statusCode, answer.body).toBe(200);
        const traces = answer.json().data as { trace_id: string; session_id: string }[];
        return traces.length > 0 ? traces : undefined;
      },
      30_000,
      'the trace with a NUL in its session id',
    );
    expect(found).toEqual([expect.objectContaining({ trace_id: traceId, session_id: 'chat\u0000one' })]);
  });

  it.each(['session_id', 'user_id', 'service', 'environment', 'model', 'name'])(
    'answers 200 to a NUL in %s',
    async (filter) => {
      const answer = await api.call('GET', `/api/traces?${filter}=%00`, { bearer: tracesKey });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().data).toEqual([]);
    },
  );

  it('answers 404 not_found to a NUL in a trace or span id', async () => {
    for (const url of ['/api/traces/%00', `/api/traces/${newTraceId()}/spans/%00`]) {
      const answer = await api.call('GET', url, { bearer: tracesKey });
      expect(answer.statusCode, answer.body).toBe(404);
      expect(answer.json().error.code).toBe('not_found');
    }
  });

  it('answers 200 to a NUL in the request log’s filters', async () => {
    const answer = await api.call('GET', '/api/inference/requests?model=%00&key_id=a%00', {
      bearer: inferenceKey,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data).toEqual([]);
  });
});

describe('routes whose fields had a format of their own already', () => {
  it('refuse a NUL with their 422 (trace deletion, billing)', async () => {
    expectInvalid(await api.call('DELETE', '/api/traces/%00', { bearer: tracesKey }), 'traceId');
    expectInvalid(await api.call('GET', '/api/billing/summary?from=%00', { bearer: tracesKey }), 'from');
  });
});
