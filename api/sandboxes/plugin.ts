import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireExisting } from '../../domain/sandboxes/decide.ts';
import { config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import type { Desktop } from '../../sandbox-runtime/desktop/index.ts';
import { SandboxRuntime } from '../../sandbox-runtime/runtime.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import type { SandboxTokenCodec } from '../auth/sandbox-tokens.ts';
import { errorResponses } from '../error-responses.ts';
import { parsedInHandler } from '../request-validation.ts';
import { SandboxAccess, sandboxScope } from './access.ts';
import { data, sandboxData, sandboxObject } from './answers.ts';
import { SandboxCommands } from './commands.ts';
import { idParams, type SandboxContext } from './context.ts';
import { desktopRoutes } from './desktop-routes.ts';
import { sandboxErrorHandler } from './errors.ts';
import { type IdleJob, startIdleJob } from './idle.ts';
import { lifecycleRoutes } from './lifecycle-routes.ts';
import { recoverSandboxes } from './recovery.ts';
import { routeUpgrades, ScreenHub, screenRoutes } from './screen.ts';
import { SandboxStore } from './store.ts';

/** What the sandbox surface runs with (ApiDeps.sandboxes); without it, routes only, from config. */
export interface SandboxDeps {
  /** The host's runtime; `SandboxRuntime.fromConfig` when absent. */
  runtime?: SandboxRuntime;
  /** The host's desktop (`createDesktop(runtime)`); without one, starting a desktop answers 503. */
  desktop?: Desktop;
  /** The clock of decisions, tokens and the idle timeout (tests move it). */
  now?: () => Date;
  /** Runs the idle-timeout job this often; off when absent. */
  idleCheckMs?: number;
  /** Converges the host with the read model on start (recovery.ts); off when absent. */
  recoverOnStart?: boolean;
  /** Only these orgs' sandboxes are this process's to recover and expire (tests share one database). */
  orgIds?: () => readonly string[];
  /** How long a command waits for the read model to show its events (default 15 s). */
  projectionTimeoutMs?: number;
}

export interface SandboxPluginOptions extends SandboxDeps {
  directory: OrgDirectory;
  producer: EventProducer;
  pool: PgPool;
  logger: Logger;
  tokens: SandboxTokenCodec;
}

/**
 * The sandbox surface under /api (spec 002, "Endpoints"): lifecycle, exec and files, tokens, the
 * desktop, the live screen, and one admin route. README "Sandboxes" lists the routes.
 */
export const sandboxesPlugin: FastifyPluginAsyncZod<SandboxPluginOptions> = async (app, opts) => {
  app.setErrorHandler(sandboxErrorHandler);
  app.setValidatorCompiler(parsedInHandler);
  acceptBodies(app);

  const now = opts.now ?? (() => new Date());
  const runtime =
    opts.runtime ?? SandboxRuntime.fromConfig(config(), { log: (line) => opts.logger.info(line) });
  const store = new SandboxStore(opts.pool);
  const commands = new SandboxCommands({
    store,
    producer: opts.producer,
    runtime,
    now,
    logger: opts.logger,
    projectionTimeoutMs: opts.projectionTimeoutMs ?? 15_000,
  });
  const ctx: SandboxContext = {
    store,
    commands,
    access: new SandboxAccess(store, opts.directory, now),
    runtime,
    tokens: opts.tokens,
    now,
    desktop: opts.desktop,
  };
  const hub = new ScreenHub(ctx, opts.logger);
  commands.onUnusable((sandboxId, why) => hub.close(sandboxId, why));
  routeUpgrades(app);

  await app.register(lifecycleRoutes, { ctx });
  await app.register(desktopRoutes, { ctx });
  await app.register(screenRoutes, { ctx, hub });
  secretsRoute(app, ctx);

  let idle: IdleJob | undefined;
  app.addHook('onReady', async () => {
    if (opts.idleCheckMs)
      idle = startIdleJob({ ...ctx, intervalMs: opts.idleCheckMs, logger: opts.logger, orgIds: opts.orgIds });
    if (opts.recoverOnStart)
      void recoverSandboxes({ ...ctx, pool: opts.pool, logger: opts.logger, orgIds: opts.orgIds }).catch(
        (error: unknown) => opts.logger.error({ err: error }, 'sandboxes: recovery failed'),
      );
  });
  app.addHook('preClose', async () => {
    idle?.stop();
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
      return { data: sandboxData(await ctx.commands.change(sandbox, 'SetSecrets')) };
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
