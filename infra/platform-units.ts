// What `npm start`'s supervisor (infra/platform.ts) runs: each process, its entry and the
// environment that makes it one of several. The local stack's fleet (issue 47) is
// ORRERY_API_REPLICAS API processes on 8080, 8081, … and ORRERY_SANDBOX_HOSTS sandbox hosts on
// 8092, 8093, …, each host with a state folder of its own (`.sandboxes`, `.sandboxes-2`, …) and
// announcing itself to every API replica in turn; one of each by default.

export interface PlatformUnit {
  /** The process's name in the supervisor's log lines and its ORRERY_SERVICE. */
  name: string;
  entry: string;
  env: Record<string, string>;
}

export const processEntries = {
  api: 'api/main.ts',
  consumers: 'consumers/main.ts',
  jobs: 'jobs/main.ts',
  'sandbox-host': 'sandbox-host/main.ts',
  stack: 'infra/stack/watch.ts',
} as const;

interface Fleet {
  /** The machine's name: the second host and on are named after it with their number. */
  machine: string;
  apiReplicas: number;
  sandboxHosts: number;
  apiPort: number;
  hostPort: number;
  sandboxDir: string;
  /** ORRERY_STACK=external: the stack's parts are someone else's, so no watcher. */
  externalStack: boolean;
}

const nth = (name: string, index: number) => (index === 0 ? name : `${name}-${index + 1}`);

export function platformUnits(fleet: Fleet): PlatformUnit[] {
  const apiUrls = Array.from(
    { length: fleet.apiReplicas },
    (_, i) => `http://127.0.0.1:${fleet.apiPort + i}`,
  );
  const apis = apiUrls.map((_, i) => ({
    name: nth('api', i),
    entry: processEntries.api,
    env: { ORRERY_API_PORT: String(fleet.apiPort + i) },
  }));
  const hosts = Array.from({ length: fleet.sandboxHosts }, (_, i) => ({
    name: nth('sandbox-host', i),
    entry: processEntries['sandbox-host'],
    env: {
      ORRERY_SANDBOX_HOST_PORT: String(fleet.hostPort + i),
      ORRERY_SANDBOX_HOST_URL: `http://127.0.0.1:${fleet.hostPort + i}`,
      ORRERY_SANDBOX_DIR: nth(fleet.sandboxDir, i),
      ORRERY_SANDBOX_HOST_API_URL: apiUrls.join(','),
      ORRERY_SANDBOX_HOST_NAME: nth(fleet.machine, i),
    },
  }));
  return [
    ...apis,
    { name: 'consumers', entry: processEntries.consumers, env: {} },
    { name: 'jobs', entry: processEntries.jobs, env: {} },
    ...hosts,
    ...(fleet.externalStack ? [] : [{ name: 'stack', entry: processEntries.stack, env: {} }]),
  ];
}
