import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from '../../api/admin/commands.ts';
import { type ApiDeps, buildApi } from '../../api/app.ts';
import { followOrgStream, OrgDirectory, type OrgFollower } from '../../api/auth/org-directory.ts';
import type { ConsumerGroupId } from '../../consumers/groups.ts';
import { allProjections } from '../../consumers/projections.ts';
import { type RunningConsumer, runConsumer } from '../../consumers/runtime.ts';
import type { AdmissionLimits } from '../../domain/tracing/admission.ts';
import { type ClickHouseClient, createClickHouse } from '../../platform/clickhouse.ts';
import { config } from '../../platform/config.ts';
import { withAdmin } from '../../platform/kafka.ts';
import { logger } from '../../platform/logger.ts';
import { createPgPool, type PgPool } from '../../platform/postgres.ts';
import { createEventProducer, type EventProducer } from '../../producers/producer.ts';
import type { Projection } from '../../projections/projection.ts';
import { deadLetterTopic, topics } from '../../schemas/events/topics.ts';
import { startGroupAtEnd } from './kafka.ts';

/**
 * The platform's processes, in the test process, against the real stack: the producer, the
 * consumers (every projection), and the API with its org directory. One per test file.
 */
export interface TestPlatform {
  pool: PgPool;
  clickhouse: ClickHouseClient;
  producer: EventProducer;
  directory: OrgDirectory;
  api: FastifyInstance;
  admin: AdminDeps;
  stop(): Promise<void>;
}

export async function startTestPlatform(
  options: {
    consumers?: boolean;
    beforeReady?: (api: FastifyInstance) => void;
    tracingLimits?: AdmissionLimits;
    /** The sandbox surface's runtime, desktop, clock and background jobs (api/sandboxes/plugin.ts). */
    sandboxes?: ApiDeps['sandboxes'];
    /** The run surface's clock, recovery and metering (api/runs/plugin.ts). */
    runs?: ApiDeps['runs'];
    /** The HTTP server's timeouts; ORRERY_HTTP_* when absent. */
    httpTimeouts?: ApiDeps['httpTimeouts'];
    /** The title and preview models; ORRERY_MODELS when absent. */
    models?: ApiDeps['models'];
    /**
     * Stands in for the follower's `isCaughtUp()`, so a test can hold the API as just restarted
     * (keys not yet read) and then let it catch up, with the directory following the stream.
     */
    keysCaughtUp?: () => boolean;
    /** The clock of sessions, invitations and command-line logins. */
    clock?: ApiDeps['clock'];
    /** The dashboard's built files, served under / (api/dashboard/plugin.ts). */
    dashboardRoot?: ApiDeps['dashboardRoot'];
    /** Awaited before a group writes each batch: a test holds a read model back with it. */
    beforeProject?: Partial<Record<ConsumerGroupId, () => Promise<void>>>;
  } = {},
): Promise<TestPlatform> {
  const pool = createPgPool(5);
  // The consumers are a process of their own under `npm start` (consumers/main.ts), with a pool of
  // their own: catching up a backlog of earlier files' events must not starve the API's requests.
  const consumerPool = createPgPool();
  const clickhouse = createClickHouse();
  const producer = await createEventProducer('orrery-test');
  const consumers: RunningConsumer[] = [];
  if (options.consumers ?? true) {
    for (const [groupId, projection] of Object.entries(allProjections({ pool: consumerPool, clickhouse }))) {
      const before = options.beforeProject?.[groupId as ConsumerGroupId];
      const run: Projection<unknown> = before
        ? {
            ...projection,
            async project(batch, group) {
              await before();
              return projection.project(batch, group);
            },
          }
        : projection;
      consumers.push(await runConsumer(run, { registry: producer.registry, producer, logger }));
    }
  }
  const directory = new OrgDirectory();
  const follower: OrgFollower = await followOrgStream(directory, { registry: producer.registry, logger });
  await follower.caughtUp;
  const api = await buildApi({
    logger,
    directory,
    producer,
    pool,
    tracingLimits: options.tracingLimits,
    sandboxes: options.sandboxes,
    runs: options.runs,
    httpTimeouts: options.httpTimeouts,
    models: options.models,
    clock: options.clock,
    dashboardRoot: options.dashboardRoot,
    ready: options.keysCaughtUp ?? (() => follower.isCaughtUp()),
  });
  options.beforeReady?.(api);
  await api.ready();
  return {
    pool,
    clickhouse,
    producer,
    directory,
    api,
    admin: { pool, producer },
    async stop() {
      await api.close();
      await follower.stop();
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await producer.disconnect();
      await Promise.all([pool.end(), consumerPool.end(), clickhouse.close()]);
    },
  };
}

/**
 * Runs one projection under a consumer group of the test's own (and its dead-letter topic). A
 * new group starts at the topic's current end, not its beginning: the shared stack's topics hold
 * every earlier run's events, so the test publishes what it needs after this resolves.
 */
export async function runProjectionAs<E>(
  platform: Pick<TestPlatform, 'producer'>,
  projection: Projection<E>,
  groupId: string,
  hooks?: Parameters<typeof runConsumer>[1]['hooks'],
): Promise<RunningConsumer> {
  const deadLetters = deadLetterTopic(groupId);
  await withAdmin('orrery-test-admin', async (admin) => {
    if (!(await admin.listTopics()).includes(deadLetters))
      await admin.createTopics({ topics: [{ topic: deadLetters, numPartitions: 1 }] });
  });
  await startGroupAtEnd(groupId, topics[projection.stream].name);
  return runConsumer(
    { ...projection, groupId },
    { registry: platform.producer.registry, producer: platform.producer, logger, hooks },
  );
}

export { eventually } from './eventually.ts';

/** A producer whose only broker is a closed port: every send fails within a second and a half. */
export function deadKafkaProducer(): Promise<EventProducer> {
  return createEventProducer('orrery-test-dead-kafka', {
    settings: {
      ...config().kafka,
      brokers: ['127.0.0.1:1'],
      timeouts: { requestMs: 500, deliveryMs: 1500, callerMs: 1500 },
    },
  });
}
