import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import type { AdmissionLimits } from '../domain/tracing/admission.ts';
import { limits } from '../domain/tracing/limits.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import { config, developmentTokenSecret, type InferenceModelConfig } from '../platform/config.ts';
import type { DependencyWatch, WatchTimings } from '../platform/dependency-watch.ts';
import type { HttpTimeouts } from '../platform/http-settings.ts';
import type { Logger } from '../platform/logger.ts';
import { observabilityPlugin } from '../platform/observability.ts';
import type { PgPool } from '../platform/postgres.ts';
import { apiReadiness, type Readiness, storeWatch } from '../platform/readiness.ts';
import { serverOptions } from '../platform/server-options.ts';
import type { EventProducer } from '../producers/producer.ts';
import { AdmissionLeases } from '../stores/admission-lease.ts';
import { IdempotencyKeys } from '../stores/idempotency-keys.ts';
import { SandboxHosts } from '../stores/sandbox-hosts.ts';
import { accountPlugin } from './account/plugin.ts';
import type { OrgDirectory } from './auth/org-directory.ts';
import { authPlugin } from './auth/plugin.ts';
import { sandboxTokenCodec } from './auth/sandbox-tokens.ts';
import { sessionPlugin } from './auth/sessions.ts';
import { billingPlugin } from './billing/plugin.ts';
import { ClickHouseReads } from './clickhouse-reads.ts';
import { dashboardPlugin } from './dashboard/plugin.ts';
import { dependenciesPlugin } from './dependencies.ts';
import { type Dependency, errorHandler, jsonErrorFormat } from './errors.ts';
import { hostsPlugin } from './hosts/plugin.ts';
import { clientErrorHandler, frameworkErrors, notFoundHandler, surfacePrefixes } from './http-errors.ts';
import { inferencePlugin } from './inference/plugin.ts';
import { AdmissionQueue } from './otlp/admission-queue.ts';
import { traceDeletionPlugin } from './otlp/deletion.ts';
import { otlpTracesPathItem } from './otlp/openapi.ts';
import { otlpPlugin } from './otlp/plugin.ts';
import { peoplePlugin } from './people/plugin.ts';
import { namedModelPaths, pricesPlugin } from './prices/plugin.ts';
import { queriesPlugin } from './queries/plugin.ts';
import { validateRequestPart } from './request-validation.ts';
import { type RunDeps, runsPlugin } from './runs/plugin.ts';
import { Fleet } from './sandboxes/fleet.ts';
import { HostClient } from './sandboxes/host-client.ts';
import { type SandboxDeps, sandboxesPlugin } from './sandboxes/plugin.ts';
import { slowBodiesPlugin } from './slow-bodies.ts';
import { templatesPlugin } from './templates/plugin.ts';

export interface ApiDeps {
  logger: Logger;
  directory: OrgDirectory;
  producer: EventProducer;
  pool: PgPool;
  /**
   * The connections admission holds while Kafka acknowledges a group (stores/ingest-ledger.ts,
   * recordAccepted): a pool of their own, so a Kafka outage cannot take the connections the other
   * routes need. `pool` when absent.
   */
  admissionPool?: PgPool;
  /** The trace ingest's admission limits; tests pass smaller ones. */
  tracingLimits?: AdmissionLimits;
  /**
   * Whether the org stream has been read to its end (keys are known). Until then a request with
   * a key gets its surface's 503 with Retry-After, and /readyz says `keys: starting`.
   */
  ready: () => boolean;
  /** The title and preview models; ORRERY_MODELS when absent. */
  models?: readonly InferenceModelConfig[];
  /** The sandbox surface's clock and secrets, and which hosts it may place on (api/sandboxes/). */
  sandboxes?: SandboxDeps & {
    tokenSecret?: string;
    /** ORRERY_HOST_SECRET when absent. */
    hostSecret?: string;
    /** The fleet of sandbox hosts this API places on; ORRERY_SANDBOX_FLEET when absent (a test's own). */
    fleet?: string;
  };
  /** The run surface's clock (api/runs/plugin.ts); runs go to the sandbox hosts too. */
  runs?: RunDeps;
  /** The HTTP server's timeouts; ORRERY_HTTP_* when absent (tests pass short ones). */
  httpTimeouts?: HttpTimeouts;
  /** How often Postgres, Kafka and ClickHouse are probed, and for how long (platform/dependency-watch.ts). */
  watchTimings?: WatchTimings;
  /** The clock of sessions, invitations and command-line logins; tests move it. */
  clock?: () => Date;
  /** The dashboard's built files; packages/dashboard/dist when absent (api/dashboard/plugin.ts). */
  dashboardRoot?: string;
}

/** /readyz for the API: the keys, and the watch's last answers for Postgres and Kafka. */
function apiReadinessCheck(deps: ApiDeps, watch: DependencyWatch<Dependency>): () => Promise<Readiness> {
  return async () =>
    apiReadiness({
      keys: deps.ready() ? 'caught_up' : 'starting',
      postgres: watch.check('postgres'),
      kafka: watch.check('kafka'),
    });
}

/** The API: shared concerns registered once, then one plugin per surface under /api, then the dashboard. */
export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...serverOptions(deps.logger, deps.httpTimeouts),
    // Requests during a drain are refused by dependencies.ts, in each surface's shape.
    return503OnClosing: false,
    bodyLimit: 1024 * 1024,
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validateRequestPart);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.setNotFoundHandler(notFoundHandler);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Orrery API',
        version: '0.1.0',
        description: 'Trace ingestion, title and preview text, and desktop sandboxes.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: { type: 'apiKey', in: 'cookie', name: 'orrery_session' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // The OTLP route reads its body as a stream, which route schemas cannot describe: its path
    // item is written by hand from the spec's response table (otlp/openapi.ts). The price routes
    // take the model as a wildcard, written `{model}` (prices/plugin.ts).
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      return {
        ...openapiObject,
        paths: {
          ...(openapiObject.paths && namedModelPaths(openapiObject.paths, '/api')),
          [`${surfacePrefixes.otlp}/v1/traces`]: otlpTracesPathItem(),
        },
      };
    },
  });
  const clickhouse = createClickHouse();
  app.addHook('onClose', () => clickhouse.close());
  const watch = storeWatch(
    { postgres: deps.pool, kafka: deps.producer, clickhouse: config().clickhouse },
    deps.watchTimings,
  );
  const readModels = new ClickHouseReads(clickhouse, () => watch.awaySignal('clickhouse'));
  await watch.start();
  await app.register(slowBodiesPlugin, { idleMs: (deps.httpTimeouts ?? config().http).bodyIdleMs });
  await app.register(dependenciesPlugin, { watch });
  await app.register(observabilityPlugin, { readiness: apiReadinessCheck(deps, watch) });
  const tokenSecret = deps.sandboxes?.tokenSecret ?? config().sandboxes.tokenSecret;
  if (tokenSecret === developmentTokenSecret)
    deps.logger.warn('ORRERY_TOKEN_SECRET is unset: sandbox tokens are signed with the development secret');
  const sandboxTokens = sandboxTokenCodec(tokenSecret);
  await app.register(sessionPlugin, { pool: deps.pool, now: deps.clock });
  await app.register(authPlugin, { directory: deps.directory, sandboxTokens, keysLoaded: deps.ready });
  await app.register(accountPlugin, { prefix: '/api', directory: deps.directory, pool: deps.pool });
  await app.register(peoplePlugin, { prefix: '/api', ...deps, now: deps.clock });
  // A group waits for the org's lease no longer than its caller waits for Kafka, and a lease
  // outlives a publish, so only a process that died or stalled loses one.
  const { callerMs } = config().kafka.timeouts;
  const admissions = new AdmissionQueue({
    pool: deps.pool,
    recordPool: deps.admissionPool ?? deps.pool,
    producer: deps.producer,
    leases: new AdmissionLeases(deps.pool, callerMs + 5_000),
    leaseWaitMs: callerMs,
    limits: deps.tracingLimits ?? limits,
    away: () => watch.away(['postgres', 'kafka']),
  });
  // Once the requests in flight are answered: the leases kept for the orgs' next groups go back, so
  // another API process need not wait for them to expire.
  app.addHook('onClose', () => admissions.close());
  await app.register(otlpPlugin, { prefix: surfacePrefixes.otlp, directory: deps.directory, admissions });
  await app.register(traceDeletionPlugin, { prefix: '/api', admissions });
  await app.register(queriesPlugin, { prefix: '/api', readModels });
  await app.register(inferencePlugin, {
    prefix: surfacePrefixes.inference,
    directory: deps.directory,
    producer: deps.producer,
    idempotencyKeys: new IdempotencyKeys(deps.pool),
    models: deps.models,
    readModels,
    pool: deps.pool,
  });
  await app.register(billingPlugin, { prefix: '/api/billing', pool: deps.pool });
  await app.register(pricesPlugin, {
    prefix: '/api',
    directory: deps.directory,
    producer: deps.producer,
    pool: deps.pool,
    now: deps.clock,
  });
  // The fleet of sandbox hosts: they announce themselves here, and the sandbox and run routes
  // reach the host holding each sandbox or run (issue 47).
  const hostSecret = deps.sandboxes?.hostSecret ?? config().fleet.secret;
  const sandboxHosts = new SandboxHosts(deps.pool);
  const fleet = new Fleet(sandboxHosts, deps.logger, {
    name: deps.sandboxes?.fleet ?? config().fleet.name,
  });
  const hosts = new HostClient(fleet, hostSecret, deps.logger);
  app.addHook('onReady', () => fleet.start());
  app.addHook('onClose', async () => {
    fleet.stop();
    await hosts.close();
  });
  await app.register(hostsPlugin, { hosts: sandboxHosts, secret: hostSecret });
  await app.register(sandboxesPlugin, {
    prefix: '/api',
    ...deps,
    ...deps.sandboxes,
    tokens: sandboxTokens,
    fleet,
    hosts,
  });
  await app.register(runsPlugin, { prefix: '/api', ...deps, ...deps.runs, fleet, hosts });
  await app.register(templatesPlugin, { prefix: '/api', pool: deps.pool, fleet, hosts });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Last: it answers the GETs outside /api that no route above has.
  await app.register(dashboardPlugin, { root: deps.dashboardRoot });
  return app;
}
