import { randomBytes } from 'node:crypto';
import type { HostResources } from '../../domain/sandboxes/hosts.ts';
import { capacityBySize } from '../../domain/sandboxes/hosts.ts';
import { config } from '../../platform/config.ts';
import { logger } from '../../platform/logger.ts';
import { createPgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { buildSandboxHost, type SandboxHost } from '../../sandbox-host/app.ts';
import { hostIdentity } from '../../sandbox-host/identity.ts';
import { type Membership, startMembership } from '../../sandbox-host/membership.ts';
import type { Desktop } from '../../sandbox-runtime/desktop/index.ts';
import type { SandboxRuntime } from '../../sandbox-runtime/runtime.ts';
import { eventually } from './eventually.ts';
import { freePort } from './ports.ts';

// A sandbox host in the test process (sandbox-host/), as `npm start` runs one: over a runtime of
// real sandboxes in a state folder of the test's own, listening on a port of its own, and a
// member of the fleet through the same announcements, sent to the API under test over HTTP.

/** What a test chooses of its host; the rest is the process's defaults. */
export interface TestHostOptions {
  /** The host's desktop (`createDesktop(runtime)`); desktop routes answer 503 without one. */
  desktop?: Desktop;
  /** The clock of decisions and the idle timeout. */
  now?: () => Date;
  idleCheckMs?: number;
  onIdlePass?: () => void;
  recoverOnStart?: boolean;
  meterStretchSeconds?: number;
  projectionTimeoutMs?: number;
  /** What the host offers; the machine's by default. */
  resources?: HostResources;
  /** The shared secret it sends and expects; ORRERY_HOST_SECRET by default. */
  secret?: string;
  /** How often it announces itself; the process's every 2 s by default. */
  announceEveryMs?: number;
}

/** A fleet of the test's own: the API under test places only on its hosts (the database is shared). */
export const testFleet = () => `test-${randomBytes(6).toString('hex')}`;

export interface TestHost {
  hostId: string;
  url: string;
  host: SandboxHost;
  membership: Membership;
  /** Leaves the fleet and closes the host (its sandboxes stay on disk). */
  stop(): Promise<void>;
}

export async function startTestHost(
  platform: { producer: EventProducer; apiUrl: string; fleet: string },
  runtime: SandboxRuntime,
  options: TestHostOptions = {},
): Promise<TestHost> {
  await runtime.prepare();
  const { hostId } = hostIdentity(runtime.dir);
  const secret = options.secret ?? config().fleet.secret;
  const resources = options.resources ?? config().fleet.host.resources;
  let membership: Membership | undefined;
  // A process of its own under `npm start` (sandbox-host/main.ts), with a pool of its own.
  const pool = createPgPool(4);
  const host = await buildSandboxHost({
    hostId,
    logger,
    producer: platform.producer,
    pool,
    runtime,
    desktop: options.desktop,
    resources,
    secret,
    now: options.now,
    idleCheckMs: options.idleCheckMs,
    onIdlePass: options.onIdlePass,
    recoverOnStart: options.recoverOnStart,
    meterStretchSeconds: options.meterStretchSeconds,
    projectionTimeoutMs: options.projectionTimeoutMs,
    announced: () => membership?.announced() ?? false,
  });
  const url = await host.app.listen({ host: '127.0.0.1', port: await freePort() });
  membership = startMembership({
    hostId,
    apiUrls: [platform.apiUrl],
    secret,
    everyMs: options.announceEveryMs ?? 2_000,
    logger,
    announcement: async () => ({
      name: `test-${hostId}`,
      fleet: platform.fleet,
      url,
      cores: resources.cores,
      memory_mib: resources.memoryMiB,
      memory_overcommit: resources.memoryOvercommit,
      capacity: capacityBySize(resources),
    }),
  });
  const member = membership;
  await eventually(async () => (member.announced() ? true : undefined), 10_000, `host ${hostId} announced`);
  return {
    hostId,
    url,
    host,
    membership: member,
    async stop() {
      await member.leave();
      await host.app.close();
      await pool.end();
    },
  };
}
