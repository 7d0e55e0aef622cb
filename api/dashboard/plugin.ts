import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

// The dashboard (packages/dashboard, issue 15 item 3), served under / by the API: Vite's build in
// dist/, its hashed files under /assets/ (cached for good), and index.html for any other GET
// outside /api, so the single-page app's own addresses (/orgs/…/settings, /device,
// /invitations/<token>) may be opened directly and reloaded. Under /api nothing changes: a path
// no route has goes on to the API's 404 in its surface's shape (api/http-errors.ts). Not in
// /openapi.json. When dist/ is missing (a checkout nobody built), every page is a 503 that says
// how to build it; dist/ is looked at on each request, so a build later needs no restart.

export const defaultDashboardRoot = fileURLToPath(new URL('../../packages/dashboard/dist', import.meta.url));

export interface DashboardOptions {
  /** Vite's output folder; packages/dashboard/dist when absent (tests build into their own). */
  root?: string;
}

/** The paths that are the API's, whatever the dashboard has. */
const apiPath = /^\/api(\/|\?|$)/;

/**
 * What index.html may do: load only this origin's scripts and styles, call only this origin, and
 * never be framed, so no other site can overlay the device approval or a revoke button.
 */
const pageHeaders = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  // A new build's index.html names new asset files: never reuse an old one without asking.
  'cache-control': 'no-cache',
};

export const notBuiltMessage =
  'The dashboard is not built: run `npm start` (it builds packages/dashboard before serving), or `npm run build -w @orrery/dashboard`, then reload.\n';

export const dashboardPlugin: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const root = options.root ?? defaultDashboardRoot;
  const assets = join(root, 'assets');
  const hide = { schema: { hide: true } };
  // Only `reply.sendFile`; the two routes below decide what is served.
  await app.register(fastifyStatic, { serve: false });

  app.get('/assets/*', hide, (request: FastifyRequest, reply: FastifyReply) => {
    const file = (request.params as { '*': string })['*'];
    return reply
      .header('x-content-type-options', 'nosniff')
      .sendFile(file, assets, { immutable: true, maxAge: '365d', dotfiles: 'deny' });
  });

  app.get('/*', hide, (request: FastifyRequest, reply: FastifyReply) => {
    if (apiPath.test(request.url)) return reply.callNotFound();
    if (!existsSync(join(root, 'index.html')))
      return reply.status(503).type('text/plain; charset=utf-8').send(notBuiltMessage);
    return reply.headers(pageHeaders).sendFile('index.html', root, { cacheControl: false });
  });
};
