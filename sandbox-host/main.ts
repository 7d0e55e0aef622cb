import { capacityBySize } from '../domain/sandboxes/hosts.ts';
import { config } from '../platform/config.ts';
import { developmentHostSecret, hostLease } from '../platform/fleet-settings.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool } from '../platform/postgres.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { createEventProducer } from '../producers/producer.ts';
import { createDesktop } from '../sandbox-runtime/desktop/index.ts';
import { defaultRootfsCache, ensureRootfs } from '../sandbox-runtime/rootfs.ts';
import { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { buildSandboxHost } from './app.ts';
import { hostIdentity } from './identity.ts';
import { type Membership, startMembership } from './membership.ts';

// The sandbox host process (issue 47), one per machine: owns the machine's sandboxes (the state
// folder ORRERY_SANDBOX_DIR), serves the API replicas on ORRERY_SANDBOX_HOST_PORT, and announces
// itself to the API so placement can find it. `npm start` runs ORRERY_SANDBOX_HOSTS of them.
const { fleet } = config();
if (fleet.secret === developmentHostSecret)
  logger.warn('ORRERY_HOST_SECRET is unset: API replicas and sandbox hosts trust the development secret');

const runtime = SandboxRuntime.fromConfig(config(), { log: (line) => logger.info(line) });
// A new machine's first host builds the sandboxes' base filesystem; later starts find it built.
await ensureRootfs(defaultRootfsCache(), (line) => logger.info(line));
await runtime.prepare();
const identity = hostIdentity(runtime.dir);
const producer = await createEventProducer(`orrery-sandbox-host-${identity.hostId}`);
const pool = createPgPool(10);
const { resources } = fleet.host;
let membership: Membership | undefined;
const host = await buildSandboxHost({
  hostId: identity.hostId,
  logger,
  producer,
  pool,
  runtime,
  desktop: createDesktop(runtime),
  resources,
  secret: fleet.secret,
  idleCheckMs: config().sandboxes.idleCheckSeconds * 1000,
  recoverOnStart: true,
  announced: () => membership?.announced() ?? false,
});
await host.app.listen({ host: fleet.host.bind, port: fleet.host.port });
membership = startMembership({
  hostId: identity.hostId,
  apiUrls: fleet.host.apiUrls,
  secret: fleet.secret,
  everyMs: hostLease.announceEveryMs,
  logger,
  announcement: async () => ({
    name: fleet.host.name,
    fleet: fleet.name,
    url: fleet.host.url,
    cores: resources.cores,
    memory_mib: resources.memoryMiB,
    memory_overcommit: resources.memoryOvercommit,
    capacity: capacityBySize(resources),
  }),
});
logger.info(
  { hostId: identity.hostId, url: fleet.host.url, dir: runtime.dir },
  `sandbox host ${identity.hostId} serving on ${fleet.host.url}`,
);

onShutdown(logger, async () => {
  await membership?.leave();
  await host.app.close();
  await producer.disconnect();
  await pool.end();
});
