import Fastify from 'fastify';
import { createClickHouse } from '../platform/clickhouse.ts';
import { config } from '../platform/config.ts';
import { logger } from '../platform/logger.ts';
import { jobRuns } from '../platform/metrics.ts';
import { observabilityPlugin } from '../platform/observability.ts';
import { createPgPool } from '../platform/postgres.ts';
import { storeWatch, watchedReadiness } from '../platform/readiness.ts';
import { serverOptions } from '../platform/server-options.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { createEventProducer } from '../producers/producer.ts';
import { postCharges } from './post-charges.ts';
import { runRetention } from './retention.ts';
import { compactSpanFacts } from './span-facts-compaction.ts';

// The jobs process: the platform's periodic work on timers (charge posting, retention, settling the
// analytics' span facts), one run of each at a time, plus /healthz, /readyz and /metrics. `npm
// start` runs it beside the API and the consumers; each job also runs by hand (`npx tsx
// jobs/<job>.ts`).
const pool = createPgPool(3);
const clickhouse = createClickHouse();
const producer = await createEventProducer('orrery-jobs');
const intervals = config().jobs;

const jobs = [
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
];

const timers: NodeJS.Timeout[] = [];
const running = new Set<Promise<unknown>>();
for (const job of jobs) {
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    const run = job
      .run()
      .then((result) => {
        jobRuns.inc({ job: job.name, outcome: 'ok' });
        logger.info({ job: job.name, result }, `${job.name} done`);
      })
      .catch((error: unknown) => {
        jobRuns.inc({ job: job.name, outcome: 'failed' });
        logger.error({ job: job.name, err: error }, `${job.name} failed; it runs again at its next time`);
      })
      .finally(() => {
        busy = false;
        running.delete(run);
      });
    running.add(run);
  };
  timers.push(setInterval(tick, job.everyMs));
  setTimeout(tick, 5_000).unref();
}

const server = Fastify(serverOptions(logger));
// Ready while every store its jobs read and write answers.
const watch = storeWatch({ postgres: pool, clickhouse, kafka: producer });
await watch.start();
await server.register(observabilityPlugin, {
  readiness: watchedReadiness(watch, ['postgres', 'clickhouse', 'kafka']),
});
await server.listen({ host: config().api.host, port: intervals.port });

onShutdown(logger, async () => {
  for (const timer of timers) clearInterval(timer);
  await Promise.allSettled(running);
  await server.close();
  watch.stop();
  await producer.disconnect();
  await Promise.all([pool.end(), clickhouse.close()]);
});
