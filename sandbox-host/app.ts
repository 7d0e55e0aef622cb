import Fastify, { type FastifyInstance } from 'fastify';
import type { HostResources } from '../domain/sandboxes/hosts.ts';
import { noSandboxes } from '../domain/sandboxes/hosts.ts';
import { carriesHostSecret } from '../platform/host-secret.ts';
import type { HttpTimeouts } from '../platform/http-settings.ts';
import type { Logger } from '../platform/logger.ts';
import { observabilityPlugin } from '../platform/observability.ts';
import type { PgPool } from '../platform/postgres.ts';
import { storeWatch, watchedReadiness } from '../platform/readiness.ts';
import { serverOptions } from '../platform/server-options.ts';
import type { EventProducer } from '../producers/producer.ts';
import type { Desktop } from '../sandbox-runtime/desktop/index.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { RunStore } from '../stores/runs.ts';
import { SandboxStore } from '../stores/sandboxes.ts';
import { TemplateStore } from '../stores/templates.ts';
import { SandboxCommands } from './commands.ts';
import type { HostContext } from './context.ts';
import { desktopRoutes } from './desktop-routes.ts';
import { hostErrorHandler } from './errors.ts';
import { type IdleJob, startIdleJob } from './idle.ts';
import { recoverSandboxes } from './recovery.ts';
import { HostRoom } from './room.ts';
import { runRoutes } from './run-routes.ts';
import { Runner } from './runner.ts';
import { sandboxRoutes } from './sandbox-routes.ts';
import { HostScreens } from './screen.ts';
import { templateRoutes } from './template-routes.ts';
import { TemplateCommands } from './templates.ts';

// A sandbox host (issue 47): the process that owns one machine's sandboxes, their desktops and
// screens, and the runs on them. It serves the routes API replicas forward to it
// (schemas/sandbox-hosts.ts), each carrying the shared secret; it decides and records every
// command on the sandboxes it holds (commands.ts), expires their idle ones, and recovers them
// after a restart. /healthz, /readyz and /metrics need no secret, for a kubelet's probes.

export interface SandboxHostDeps {
  hostId: string;
  logger: Logger;
  producer: EventProducer;
  pool: PgPool;
  runtime: SandboxRuntime;
  /** The machine's desktop (`createDesktop(runtime)`); without one, desktop routes answer 503. */
  desktop?: Desktop;
  /** What this host offers (domain/sandboxes/hosts.ts). */
  resources: HostResources;
  /** ORRERY_HOST_SECRET: every request but health and metrics must carry it. */
  secret: string;
  /** The clock of decisions and the idle timeout (tests move it). */
  now?: () => Date;
  /** Runs the idle-timeout job this often; off when absent. */
  idleCheckMs?: number;
  /** Called as each idle pass begins. */
  onIdlePass?: () => void;
  /** Converges the runtime with the read model, and fails runs a dead process left, on start. */
  recoverOnStart?: boolean;
  /** How long a command waits for the read model to show its events (default 15 s). */
  projectionTimeoutMs?: number;
  /** How often a running run's seconds are recorded (domain/runs/metering.ts). */
  meterStretchSeconds?: number;
  httpTimeouts?: HttpTimeouts;
  /** Whether this host is a member of the fleet yet (its announcement taken); /readyz says so. */
  announced?: () => boolean;
}

export interface SandboxHost {
  app: FastifyInstance;
  context: HostContext;
  room: HostRoom;
}

export async function buildSandboxHost(deps: SandboxHostDeps): Promise<SandboxHost> {
  const now = deps.now ?? (() => new Date());
  const projectionTimeoutMs = deps.projectionTimeoutMs ?? 15_000;
  const store = new SandboxStore(deps.pool);
  const runs = new RunStore(deps.pool);
  const templateStore = new TemplateStore(deps.pool);
  const room = new HostRoom(deps.resources, async () => {
    const held = noSandboxes();
    for (const sandbox of await deps.runtime.list()) held[sandbox.size] += 1;
    return held;
  });
  const commands = new SandboxCommands({
    hostId: deps.hostId,
    store,
    templates: templateStore,
    producer: deps.producer,
    runtime: deps.runtime,
    room,
    now,
    logger: deps.logger,
    projectionTimeoutMs,
  });
  const templates = new TemplateCommands({
    hostId: deps.hostId,
    templates: templateStore,
    sandboxes: commands,
    runtime: deps.runtime,
    room,
    producer: deps.producer,
    now,
    logger: deps.logger,
    projectionTimeoutMs,
  });
  const runner = new Runner({
    hostId: deps.hostId,
    runtime: deps.runtime,
    room,
    producer: deps.producer,
    store: runs,
    pool: deps.pool,
    logger: deps.logger,
    now,
    projectionTimeoutMs,
    meterStretchSeconds: deps.meterStretchSeconds,
  });
  const context: HostContext = {
    hostId: deps.hostId,
    store,
    runs,
    commands,
    runtime: deps.runtime,
    desktop: deps.desktop,
    runner,
    templates,
    templateStore,
    logger: deps.logger,
  };

  const app = Fastify({ ...serverOptions(deps.logger, deps.httpTimeouts), bodyLimit: 16 * 1024 * 1024 });
  app.setErrorHandler(hostErrorHandler);
  const watch = storeWatch({ postgres: deps.pool, kafka: deps.producer });
  await watch.start();
  await app.register(observabilityPlugin, {
    readiness: watchedReadiness(watch, ['postgres', 'kafka'], deps.announced ?? (() => true)),
  });
  await app.register(async (secured) => {
    secured.addHook('onRequest', async (request, reply) => {
      if (carriesHostSecret(request.headers.authorization, deps.secret)) return;
      request.log.warn({ remote: request.ip }, 'sandbox host: refused a request without the host secret');
      return reply
        .status(401)
        .send({ error: { code: 'unauthorized', message: 'Send the host secret (ORRERY_HOST_SECRET).' } });
    });
    sandboxRoutes(secured, context);
    desktopRoutes(secured, context);
    runRoutes(secured, context);
    templateRoutes(secured, context);
  });
  const screens = new HostScreens(context, deps.secret);
  screens.attach(app.server);
  commands.onUnusable((sandboxId, why) => {
    screens.close(sandboxId, why);
    // Its desktop's processes ended with the others (a stopped sandbox keeps them, frozen).
    if (why === 'restarted' || why === 'deleted' || why === 'lost') deps.desktop?.forget(sandboxId);
  });

  let idle: IdleJob | undefined;
  let runaways: { stop(): void } | undefined;
  app.addHook('onReady', async () => {
    runaways = deps.runtime.watchRunaways();
    if (deps.idleCheckMs)
      idle = startIdleJob({
        hostId: deps.hostId,
        commands,
        store,
        now,
        intervalMs: deps.idleCheckMs,
        logger: deps.logger,
        onPass: deps.onIdlePass,
      });
    if (deps.recoverOnStart) {
      void recoverSandboxes({ ...context, pool: deps.pool }).catch((error: unknown) =>
        deps.logger.error({ err: error }, 'sandboxes: recovery failed'),
      );
      void runner
        .recover()
        .catch((error: unknown) => deps.logger.error({ err: error }, 'runs: recovery failed'));
      void templates
        .recover()
        .catch((error: unknown) => deps.logger.error({ err: error }, 'templates: recovery failed'));
    }
  });
  app.addHook('preClose', async () => {
    idle?.stop();
    runaways?.stop();
    screens.closeAll();
    await runner.shutdown();
    await templates.settled();
  });
  app.addHook('onClose', async () => watch.stop());
  return { app, context, room };
}
