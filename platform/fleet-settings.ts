import { availableParallelism, hostname, totalmem } from 'node:os';
import { z } from 'zod';

// The fleet's settings (issue 47): how API replicas and sandbox hosts find and trust each other,
// and what a host offers. Read by platform/config.ts. The defaults make one machine a fleet of
// one: the host on 127.0.0.1:8092 announces itself to the API on 127.0.0.1:8080.

/** The shared secret when ORRERY_HOST_SECRET is unset; every platform process warns at start-up. */
export const developmentHostSecret = 'orrery-development-host-secret-do-not-use-in-production';

const portNumber = z.coerce.number().int().min(1).max(65535);
const seconds = z.coerce.number().int().min(1);

export const fleetEnvironment = {
  // Between API replicas and sandbox hosts, both ways: a host's announcement and every call to a host.
  ORRERY_HOST_SECRET: z.string().min(32, 'use at least 32 characters').default(developmentHostSecret),
  // Which hosts an API places on, and which fleet a host joins: one deployment's by default.
  ORRERY_SANDBOX_FLEET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'use 1 to 63 lowercase letters, digits, `_` and `-`')
    .default('default'),
  ORRERY_SANDBOX_HOST_PORT: portNumber.default(8092),
  ORRERY_SANDBOX_HOST_BIND: z.string().default('127.0.0.1'),
  // Where API replicas reach this host (a pod's IP on Kubernetes); http://127.0.0.1:<port> by default.
  ORRERY_SANDBOX_HOST_URL: z.url({ protocol: /^https?$/ }).optional(),
  ORRERY_SANDBOX_HOST_NAME: z.string().min(1).max(253).optional(),
  // Where this host announces itself: the API, through any load balancer in front of its replicas,
  // or the replicas themselves, separated by commas (tried in turn while one does not answer).
  ORRERY_SANDBOX_HOST_API_URL: z
    .string()
    .default('http://127.0.0.1:8080')
    .transform((text) => text.split(',').map((url) => url.trim().replace(/\/$/, '')))
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1)),
  // What this host offers; the machine's (or its container's) cores and memory by default.
  ORRERY_SANDBOX_HOST_CORES: z.coerce.number().int().min(1).optional(),
  ORRERY_SANDBOX_HOST_MEMORY_MIB: z.coerce.number().int().min(256).optional(),
  ORRERY_SANDBOX_HOST_MEMORY_OVERCOMMIT: z.coerce.number().positive().max(64).default(2),
  // A host whose lease ran out this long ago is gone for good: its sandboxes lost, its runs failed.
  ORRERY_SANDBOX_HOST_GRACE_SECONDS: seconds.default(300),
  // The base filesystem sandboxes are made from; ~/.cache/orrery/rootfs by default.
  ORRERY_SANDBOX_ROOTFS_DIR: z.string().min(1).optional(),
  // The resolvers sandboxes' DNS queries go to, addresses separated by commas; the host's own by default.
  ORRERY_SANDBOX_DNS: z
    .string()
    .optional()
    .transform((text) =>
      text === undefined || text.trim() === '' ? undefined : text.split(',').map((server) => server.trim()),
    )
    .pipe(
      z
        .array(z.union([z.ipv4(), z.ipv6()]))
        .min(1)
        .optional(),
    ),
  // The local stack only (infra/platform.ts): API replicas on 8080, 8081, …; hosts on 8092, 8093, ….
  ORRERY_API_REPLICAS: z.coerce.number().int().min(1).max(8).default(1),
  ORRERY_SANDBOX_HOSTS: z.coerce.number().int().min(1).max(8).default(1),
};

type FleetEnvironment = z.output<z.ZodObject<typeof fleetEnvironment>>;

/** How often a host announces itself, and how long each announcement's lease runs. */
export const hostLease = { announceEveryMs: 2_000, leaseSeconds: 6 } as const;

export function fleetSettings(env: FleetEnvironment) {
  return {
    secret: env.ORRERY_HOST_SECRET,
    name: env.ORRERY_SANDBOX_FLEET,
    graceSeconds: env.ORRERY_SANDBOX_HOST_GRACE_SECONDS,
    host: {
      port: env.ORRERY_SANDBOX_HOST_PORT,
      bind: env.ORRERY_SANDBOX_HOST_BIND,
      url: env.ORRERY_SANDBOX_HOST_URL ?? `http://127.0.0.1:${env.ORRERY_SANDBOX_HOST_PORT}`,
      name: env.ORRERY_SANDBOX_HOST_NAME ?? hostname(),
      apiUrls: env.ORRERY_SANDBOX_HOST_API_URL,
      resources: {
        cores: env.ORRERY_SANDBOX_HOST_CORES ?? availableParallelism(),
        memoryMiB: env.ORRERY_SANDBOX_HOST_MEMORY_MIB ?? Math.floor(totalmem() / (1024 * 1024)),
        memoryOvercommit: env.ORRERY_SANDBOX_HOST_MEMORY_OVERCOMMIT,
      },
      rootfsDir: env.ORRERY_SANDBOX_ROOTFS_DIR,
      sandboxDns: env.ORRERY_SANDBOX_DNS,
    },
    local: { apiReplicas: env.ORRERY_API_REPLICAS, sandboxHosts: env.ORRERY_SANDBOX_HOSTS },
  };
}

export type FleetSettings = ReturnType<typeof fleetSettings>;
