import { config } from '../platform/config.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool } from '../platform/postgres.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { createEventProducer } from '../producers/producer.ts';
import { buildApi } from './app.ts';
import { followOrgStream, OrgDirectory } from './auth/org-directory.ts';

// The API process: follows the org stream for keys, serves HTTP, drains on SIGTERM. Sandboxes and
// runs live on the sandbox hosts (sandbox-host/), which this process reaches over HTTP.
const producer = await createEventProducer('orrery-api');
const directory = new OrgDirectory();
const follower = await followOrgStream(directory, { registry: producer.registry, logger });
// Every statement a request makes is bounded, so no request waits on a hung Postgres (issue 49).
const bounds = { statementTimeoutMs: config().postgres.statementTimeoutMs };
const pool = createPgPool(20, undefined, bounds);
// One connection per org whose group Kafka is acknowledging (api/app.ts, admissionPool).
const admissionPool = createPgPool(10, undefined, bounds);
const app = await buildApi({
  logger,
  directory,
  producer,
  pool,
  admissionPool,
  ready: () => follower.isCaughtUp(),
});
await app.listen({ host: config().api.host, port: config().api.port });

onShutdown(logger, async () => {
  await app.close();
  await follower.stop();
  await producer.disconnect();
  await pool.end();
  await admissionPool.end();
});
