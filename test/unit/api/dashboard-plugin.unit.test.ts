import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notBuiltMessage } from '../../../api/dashboard/plugin.ts';
import { notFoundHandler } from '../../../api/http-errors.ts';
import { offlineApi } from '../../../infra/openapi-client-types.ts';

// The dashboard served under / (api/dashboard/plugin.ts, issue 15 item 3): its files, index.html
// for the single-page app's own addresses, a 503 that says how to build it when it is not, and
// nothing changed under /api, whose 404s keep their surfaces' shapes.

const dir = mkdtempSync(join(tmpdir(), 'orrery-dashboard-plugin-'));
const built = join(dir, 'dist');
const indexHtml = '<!doctype html><title>Orrery</title><div id="root"></div>';
let api: Awaited<ReturnType<typeof offlineApi>>;
let notBuilt: Awaited<ReturnType<typeof offlineApi>>;

beforeAll(async () => {
  mkdirSync(join(built, 'assets'), { recursive: true });
  writeFileSync(join(built, 'index.html'), indexHtml);
  writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1);');
  writeFileSync(join(dir, 'secret.txt'), 'outside the dashboard');
  api = await offlineApi({ dashboardRoot: built });
  notBuilt = await offlineApi({ dashboardRoot: join(dir, 'never-built') });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await notBuilt?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, on = api) => on.app.inject({ method: 'GET', url });

describe('the dashboard under /', () => {
  it('answers index.html for its pages, with a policy that allows only its own origin and no framing', async () => {
    for (const url of [
      '/',
      '/login?next=%2Fdevice',
      '/orgs/org_1/settings/keys',
      '/device?code=WDJB-MJHT',
      // An invitation token holds dots: still a page, not a file.
      '/invitations/oinv_org_1.inv_2.abcdefghijklmnopqrstuvwxyz012345',
    ]) {
      const answer = await get(url);
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.body).toBe(indexHtml);
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves its hashed files to be cached for good, and no file outside them', async () => {
    const script = await get('/assets/index-abc123.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toMatch(/immutable/);
    expect(script.body).toBe('console.log(1);');

    const missing = await get('/assets/index-old.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    // A way out of dist/assets/ reaches nothing outside dist/.
    for (const url of [
      '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    ]) {
      const answer = await get(url);
      expect(answer.body, url).not.toContain('outside the dashboard');
    }
  });

  it('changes nothing under /api: a path no route has is the API 404 of its surface', async () => {
    // What the API's not-found handler alone answers: what /api answered before the dashboard.
    const before = Fastify();
    before.setNotFoundHandler(notFoundHandler);
    const paths = [
      '/api/no-such-route',
      '/api',
      '/api?x=1',
      '/api/orgs/org_1/no-such',
      '/api/otlp/v1/nothing',
      '/api/inference/nothing',
    ];
    for (const url of paths) {
      for (const method of ['GET', 'HEAD', 'POST'] as const) {
        const answer = await api.app.inject({ method, url });
        const expected = await before.inject({ method, url });
        expect(answer.statusCode, `${method} ${url}`).toBe(404);
        expect(answer.headers['content-type'], `${method} ${url}`).toBe(expected.headers['content-type']);
        expect(answer.body, `${method} ${url}`).toBe(expected.body);
      }
    }
    expect((await get('/api/no-such-route')).json()).toEqual({
      error: { code: 'not_found', message: 'No route GET /api/no-such-route; see /openapi.json.' },
    });
    await before.close();
    // A route that exists answers as before (no key: 401 in the JSON surfaces' shape).
    const me = await get('/api/me');
    expect(me.statusCode).toBe(401);
    expect(me.json().error.code).toBe('unauthorized');
  });

  it('leaves /openapi.json as it was: none of its routes are in it', async () => {
    const document = (await get('/openapi.json')).json();
    expect(Object.keys(document.paths).filter((path) => !path.startsWith('/api/'))).toEqual([]);
  });

  it('answers only GET and HEAD: another method outside /api is the 404 it was', async () => {
    const answer = await api.app.inject({ method: 'POST', url: '/orgs/org_1/settings' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.code).toBe('not_found');
  });
});

describe('the dashboard not built', () => {
  it('answers a 503 that says how to build it, and /api as before', async () => {
    for (const url of ['/', '/orgs/org_1/settings']) {
      const answer = await get(url, notBuilt);
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
      expect(answer.body).toBe(notBuiltMessage);
      expect(answer.body).toContain('npm start');
    }
    expect((await get('/api/no-such-route', notBuilt)).json().error.code).toBe('not_found');
  });
});
