import Fastify from 'fastify';
import { createClickHouse } from '../platform/clickhouse.ts';
import { config } from '../platform/config.ts';
import { logger } from '../platform/logger.ts';
import { observabilityPlugin } from '../platform/observability.ts';
import { createPgPool } from '../platform/postgres.ts';
import { storeWatch, watchedReadiness } from '../platform/readiness.ts';
import { serverOptions } from '../platform/server-options.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { createEventProducer } from '../producers/producer.ts';
import { allProjections } from './projections.ts';
import { type RunningConsumer, runConsumer } from './runtime.ts';

// The consumers process: every projection's consumer group, plus /healthz, /readyz, /metrics.
const pool = createPgPool();
const clickhouse = createClickHouse();
const producer = await createEventProducer('orrery-consumers');
const running: RunningConsumer[] = [];
for (const projection of Object.values(allProjections({ pool, clickhouse }))) {
  running.push(await runConsumer(projection, { registry: producer.registry, producer, logger }));
}

const server = Fastify(serverOptions(logger));
// Ready while every store it projects from and into answers (it listens once its consumers run).
const watch = storeWatch({ postgres: pool, clickhouse: config().clickhouse, kafka: producer });
await watch.start();
await server.register(observabilityPlugin, {
  readiness: watchedReadiness(watch, ['postgres', 'clickhouse', 'kafka']),
});
await server.listen({ host: config().api.host, port: config().consumers.port });

onShutdown(logger, async () => {
  await Promise.all(running.map((consumer) => consumer.stop()));
  await server.close();
  await watch.stop();
  await producer.disconnect();
  await Promise.all([pool.end(), clickhouse.close()]);
});
