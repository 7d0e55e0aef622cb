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
import { writeOffLostHosts } from './lost-hosts.ts';
import { postCharges } from './post-charges.ts';
import { runRetention } from './retention.ts';
import { type Job, startJobs } from './runner.ts';
import { compactSpanFacts } from './span-facts-compaction.ts';

// The jobs process: the platform's periodic work on timers (charge posting, retention, settling the
// analytics' span facts, writing off sandbox hosts gone for good), plus /healthz, /readyz and /metrics. Any number of them may run: each
// run of a job holds its Postgres lock, so it runs in one process at a time (jobs/runner.ts). `npm
// start` runs one beside the API and the consumers; each job also runs by hand (`npx tsx
// jobs/<job>.ts`).
const pool = createPgPool(3);
const clickhouse = createClickHouse();
const producer = await createEventProducer('orrery-jobs');
const intervals = config().jobs;

const jobs: Job[] = [
  {
    name: 'post-charges',
    everyMs: intervals.postChargesEverySeconds * 1000,
    run: () => postCharges({ pool, producer }),
  },
  {
    name: 'retention',
    everyMs: intervals.retentionEverySeconds * 1000,
    run: () => runRetention({ clickhouse, pool }),
  },
  {
    name: 'span-facts-compaction',
    everyMs: intervals.spanFactsCompactionEverySeconds * 1000,
    run: () => compactSpanFacts(clickhouse),
  },
  {
    // Often, so a host gone for good is written off soon after its grace period.
    name: 'lost-hosts',
    everyMs: 10_000,
    run: () => writeOffLostHosts({ pool, producer, logger, graceSeconds: config().fleet.graceSeconds }),
  },
];

// A session for each job's lock while it runs (jobs/runner.ts), apart from the runs' own.
const locks = createPgPool(jobs.length);
const running = startJobs(jobs, { locks, logger });

const server = Fastify(serverOptions(logger));
// Ready while every store its jobs read and write answers.
const watch = storeWatch({ postgres: pool, clickhouse: config().clickhouse, kafka: producer });
await watch.start();
await server.register(observabilityPlugin, {
  readiness: watchedReadiness(watch, ['postgres', 'clickhouse', 'kafka']),
});
await server.listen({ host: config().api.host, port: intervals.port });

onShutdown(logger, async () => {
  await running.stop();
  await server.close();
  await watch.stop();
  await producer.disconnect();
  await Promise.all([pool.end(), locks.end(), clickhouse.close()]);
});
