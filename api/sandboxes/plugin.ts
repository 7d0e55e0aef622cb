import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireExisting } from '../../domain/sandboxes/decide.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { SandboxStore } from '../../stores/sandboxes.ts';
import { TemplateStore } from '../../stores/templates.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import type { SandboxTokenCodec } from '../auth/sandbox-tokens.ts';
import { errorResponses } from '../error-responses.ts';
import { parsedInHandler } from '../request-validation.ts';
import { SandboxAccess, sandboxScope } from './access.ts';
import { data, sandboxData, sandboxObject } from './answers.ts';
import { idParams, type SandboxContext } from './context.ts';
import { desktopRoutes } from './desktop-routes.ts';
import { sandboxErrorHandler } from './errors.ts';
import type { Fleet } from './fleet.ts';
import type { HostClient } from './host-client.ts';
import { lifecycleRoutes } from './lifecycle-routes.ts';
import { changeSandbox } from './routing.ts';
import { routeUpgrades, ScreenHub, screenRoutes } from './screen.ts';

/** What the sandbox surface runs with (ApiDeps.sandboxes). */
export interface SandboxDeps {
  /** The clock of tokens (tests move it). */
  now?: () => Date;
  /** How long a change recorded by the API itself (a lost sandbox's) waits for the read model (default 15 s). */
  projectionTimeoutMs?: number;
}

export interface SandboxPluginOptions extends SandboxDeps {
  directory: OrgDirectory;
  producer: EventProducer;
  pool: PgPool;
  logger: Logger;
  tokens: SandboxTokenCodec;
  fleet: Fleet;
  hosts: HostClient;
}

/**
 * The sandbox surface under /api (spec 002, "Endpoints"): lifecycle, exec and files, tokens, the
 * desktop, the live screen, and one admin route; each reaches the host that holds the sandbox
 * (routing.ts). README "Sandboxes" lists the routes.
 */
export const sandboxesPlugin: FastifyPluginAsyncZod<SandboxPluginOptions> = async (app, opts) => {
  app.setErrorHandler(sandboxErrorHandler);
  app.setValidatorCompiler(parsedInHandler);
  acceptBodies(app);

  const now = opts.now ?? (() => new Date());
  const store = new SandboxStore(opts.pool);
  const ctx: SandboxContext = {
    store,
    templates: new TemplateStore(opts.pool),
    access: new SandboxAccess(store, opts.directory, now),
    fleet: opts.fleet,
    hosts: opts.hosts,
    producer: opts.producer,
    tokens: opts.tokens,
    now,
    projectionTimeoutMs: opts.projectionTimeoutMs ?? 15_000,
  };
  const hub = new ScreenHub(ctx, opts.logger);
  routeUpgrades(app);

  await app.register(lifecycleRoutes, { ctx });
  await app.register(desktopRoutes, { ctx });
  await app.register(screenRoutes, { ctx, hub });
  secretsRoute(app, ctx);

  app.addHook('preClose', async () => {
    hub.closeAll();
  });
};

/**
 * `POST /api/admin/sandboxes/:id/secrets`: marks a sandbox as holding secrets, which refuses
 * sandbox tokens for it from then on (spec, "Authentication" 6). Until secrets can be stored
 * through the API, this stands in for that feature. An API key with `sandboxes:write` of the
 * sandbox's org, never a token; it only ever takes access away, and cannot be undone.
 */
function secretsRoute(app: Parameters<FastifyPluginAsyncZod>[0], ctx: SandboxContext): void {
  app.post(
    '/admin/sandboxes/:id/secrets',
    {
      onRequest: app.requireKey(sandboxScope),
      schema: {
        tags: ['admin'],
        summary: 'Mark a sandbox as holding secrets',
        params: idParams,
        response: { 200: data(sandboxObject), ...errorResponses('sandbox.json') },
      },
    },
    async (request) => {
      const loaded = await ctx.store.resolve(request.principal!.orgId, request.params.id);
      const sandbox = requireExisting(loaded?.sandbox);
      return { data: sandboxData(await changeSandbox(ctx, sandbox, 'SetSecrets')) };
    },
  );
}

/** A JSON body may be empty on routes whose options are all optional (stop, resume, fork, …). */
function acceptBodies(app: Parameters<FastifyPluginAsyncZod>[0]): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : json(request, body as string, done),
  );
}
