import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxErrors } from '../../../domain/sandboxes/errors.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// The spec's error table through HTTP, for every code a sandbox without a desktop can provoke
// (the token codes are in tokens.int.test.ts): status, body `{ error: { code, message } }`,
// `param` on invalid_request only, and a message that states the next step.

let api: SandboxApi;
let running: { id: string; name: string };
let stopped: { id: string };
beforeAll(async () => {
  api = await givenSandboxApi();
  running = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
  stopped = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
  await api.call('POST', `/api/sandboxes/${stopped.id}/stop`);
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

function expectError(
  answer: { statusCode: number; json(): { error: Record<string, unknown> } },
  code: keyof typeof sandboxErrors | 'insufficient_scope' | 'not_configured',
) {
  const { error } = answer.json();
  expect([answer.statusCode, error.code]).toEqual([
    code in sandboxErrors ? sandboxErrors[code as keyof typeof sandboxErrors].status : answer.statusCode,
    code,
  ]);
  expect(Object.keys(error).sort()).toEqual(
    code === 'invalid_request' ? ['code', 'message', 'param'] : ['code', 'message'],
  );
  expect(typeof error.message).toBe('string');
  return error;
}

describe('the error table', () => {
  it('not_found (404): an unknown id or name, another org’s sandbox, a deleted one', async () => {
    for (const id of ['sbx_000000000000000000000000', 'no-such-name']) {
      const error = expectError(await api.call('GET', `/api/sandboxes/${id}`), 'not_found');
      expect(error.message).toMatch(/list sandboxes/);
    }
    const stranger = await api.newOrg('Errors stranger');
    expectError(
      await api.call('POST', `/api/sandboxes/${running.id}/stop`, { bearer: stranger.key }),
      'not_found',
    );
    expect((await api.call('GET', `/api/sandboxes/${running.id}`)).json().data.status).toBe('running');
  });

  it('not_running (409): exec, files and the desktop of a stopped sandbox; the message says resume', async () => {
    const id = stopped.id;
    for (const [method, url, body] of [
      ['POST', `/api/sandboxes/${id}/exec`, { command: 'true' }],
      ['GET', `/api/sandboxes/${id}/files?path=/etc/hostname`, undefined],
      ['PUT', `/api/sandboxes/${id}/files?path=/root/x`, Buffer.from('x')],
      ['POST', `/api/sandboxes/${id}/desktop/input`, { action: 'cursor' }],
      ['GET', `/api/sandboxes/${id}/desktop/screenshot`, undefined],
    ] as const) {
      const error = expectError(await api.call(method, url, { body }), 'not_running');
      expect(error.message).toMatch(/resume/);
    }
  });

  it('no_desktop (409): input, screenshot and accessibility before the desktop is started', async () => {
    const id = running.id;
    for (const [method, path, body] of [
      ['POST', 'desktop/input', { action: 'click' }],
      ['GET', 'desktop/screenshot', undefined],
      ['GET', 'desktop/accessibility', undefined],
      ['POST', 'desktop/accessibility', { ref: 'e1', action: 'read' }],
    ] as const) {
      const error = expectError(
        await api.call(method, `/api/sandboxes/${id}/${path}`, { body }),
        'no_desktop',
      );
      expect(error.message).toMatch(/start it/);
    }
    expect((await api.call('GET', `/api/sandboxes/${id}/desktop`)).json()).toEqual({
      data: { running: false },
    });
  });

  it('invalid_request (422) names the field: bodies, queries, and input actions', async () => {
    const id = running.id;
    const cases = [
      ['POST', `/api/sandboxes/${id}/exec`, {}, 'command'],
      ['POST', `/api/sandboxes/${id}/exec`, { command: 'true', timeout_seconds: 601 }, 'timeout_seconds'],
      ['POST', `/api/sandboxes/${id}/exec`, { command: 'true', env: { '1X': 'y' } }, 'env["1X"]'],
      ['POST', `/api/sandboxes/${id}/exec`, 'not json', ''],
      ['GET', `/api/sandboxes/${id}/files`, undefined, 'path'],
      ['PATCH', `/api/sandboxes/${id}`, { idle_timeout_seconds: -1 }, 'idle_timeout_seconds'],
      ['POST', `/api/sandboxes/${id}/fork`, { name: 'Bad Name' }, 'name'],
      ['GET', '/api/sandboxes?metadata[Bad]=x', undefined, 'metadata.Bad'],
      ['POST', `/api/sandboxes/${id}/desktop`, { action: 'start', resolution: '100x100' }, 'resolution'],
      ['POST', `/api/sandboxes/${id}/desktop/input`, { action: 'click', x: 5 }, 'y'],
      [
        'POST',
        `/api/sandboxes/${id}/desktop/input`,
        { action: 'scroll', direction: 'up', amount: 101 },
        'amount',
      ],
      ['POST', `/api/sandboxes/${id}/desktop/input`, { action: 'wave' }, 'action'],
      ['GET', `/api/sandboxes/${id}/desktop/screenshot?region=0,0,10`, undefined, 'region'],
      ['GET', `/api/sandboxes/${id}/desktop/accessibility?depth=201`, undefined, 'depth'],
    ] as const;
    for (const [method, url, body, param] of cases) {
      const answer = await api.call(method, url, {
        body,
        ...(typeof body === 'string' ? { headers: { 'content-type': 'application/json' } } : {}),
      });
      expect([url, answer.statusCode, answer.json().error.param]).toEqual([url, 422, param]);
      expectError(answer, 'invalid_request');
    }
  });

  it('unauthorized (401): no key, an unknown key; insufficient_scope (403): a key without sandboxes:write', async () => {
    expectError(await api.call('GET', '/api/sandboxes', { bearer: null }), 'unauthorized');
    expectError(await api.call('GET', '/api/sandboxes', { bearer: 'orr_not-a-key' }), 'unauthorized');
    expectError(
      await api.call('GET', `/api/sandboxes/${running.id}/desktop`, { bearer: null }),
      'unauthorized',
    );
    const tracer = await api.newOrg('Errors tracer', ['traces:write']);
    const error = expectError(
      await api.call('GET', '/api/sandboxes', { bearer: tracer.key }),
      'insufficient_scope',
    );
    expect(error.message).toMatch(/sandboxes:write/);
  });

  it('sandbox_has_secrets (409): minting for a sandbox with secrets', async () => {
    const secretive = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    await api.call('POST', `/api/admin/sandboxes/${secretive.name}/secrets`);
    const error = expectError(
      await api.call('POST', `/api/sandboxes/${secretive.id}/tokens`, { body: { abilities: ['view'] } }),
      'sandbox_has_secrets',
    );
    expect(error.message).toMatch(/API key/);
  });

  it('starting a desktop on an API without one: 503 not_configured', async () => {
    const answer = await api.call('POST', `/api/sandboxes/${running.id}/desktop`, {
      body: { action: 'start' },
    });
    expect(answer.statusCode).toBe(503);
    expectError(answer, 'not_configured');
  });
});
