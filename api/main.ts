import { config } from '../platform/config.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool } from '../platform/postgres.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { createEventProducer } from '../producers/producer.ts';
import { createDesktop } from '../sandbox-runtime/desktop/index.ts';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { buildApi } from './app.ts';
import { followOrgStream, OrgDirectory } from './auth/org-directory.ts';

// The API process: follows the org stream for keys, serves HTTP, drains on SIGTERM.
const producer = await createEventProducer('orrery-api');
const directory = new OrgDirectory();
const follower = await followOrgStream(directory, { registry: producer.registry, logger });
const pool = createPgPool(20);
// One connection per org whose group Kafka is acknowledging (api/app.ts, admissionPool).
const admissionPool = createPgPool(10);
// The host's sandboxes: brought in line with the read model on start, idle ones stopped on a timer.
const runtime = SandboxRuntime.fromConfig(config(), { log: (line) => logger.info(line) });
const sandboxes = {
  runtime,
  desktop: createDesktop(runtime),
  recoverOnStart: true,
  idleCheckMs: config().sandboxes.idleCheckSeconds * 1000,
};
const app = await buildApi({
  logger,
  directory,
  producer,
  pool,
  admissionPool,
  sandboxes,
  // Runs left active by an earlier process are finished as failed on start (api/runs/runner.ts).
  runs: { recoverOnStart: true },
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
