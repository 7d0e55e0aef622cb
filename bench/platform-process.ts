import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The platform as `npm start` runs it (the supervisor with its processes: API replicas, the
 * consumers, the jobs, sandbox hosts), on ports of its own, its hosts with state folders of their
 * own in a fleet of their own, so a running `npm start` is left alone. Resolves once every API
 * replica, the consumers and every host answer /readyz.
 */
export async function startPlatformProcesses(ports: {
  api: number;
  consumers: number;
  /** The first sandbox host's port (the next ones follow); the API's + 12 by default. */
  host?: number;
  apiReplicas?: number;
  sandboxHosts?: number;
}): Promise<{
  baseUrl: string;
  apiUrls: string[];
  hostUrls: string[];
  fleet: string;
  stop: () => Promise<void>;
}> {
  const apiReplicas = ports.apiReplicas ?? 1;
  const sandboxHosts = ports.sandboxHosts ?? 1;
  const hostPort = ports.host ?? ports.api + 12;
  const fleet = `bench-${randomBytes(4).toString('hex')}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/platform.ts'], {
    env: {
      ...process.env,
      ORRERY_API_PORT: String(ports.api),
      ORRERY_CONSUMERS_PORT: String(ports.consumers),
      ORRERY_JOBS_PORT: String(ports.consumers + 1),
      ORRERY_SANDBOX_HOST_PORT: String(hostPort),
      ORRERY_SANDBOX_DIR: join(mkdtempSync(join(tmpdir(), 'orrery-bench-')), 'sandboxes'),
      ORRERY_SANDBOX_FLEET: fleet,
      ORRERY_API_REPLICAS: String(apiReplicas),
      ORRERY_SANDBOX_HOSTS: String(sandboxHosts),
      ORRERY_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const apiUrls = Array.from({ length: apiReplicas }, (_, i) => `http://127.0.0.1:${ports.api + i}`);
  const hostUrls = Array.from({ length: sandboxHosts }, (_, i) => `http://127.0.0.1:${hostPort + i}`);
  const readyUrls = [...apiUrls, `http://127.0.0.1:${ports.consumers}`, ...hostUrls];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answers = await Promise.all(
      readyUrls.map((url) =>
        fetch(`${url}/readyz`).then(
          (response) => response.ok,
          () => false,
        ),
      ),
    );
    if (answers.every(Boolean)) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error('the platform did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl: apiUrls[0]!,
    apiUrls,
    hostUrls,
    fleet,
    // Ctrl-C reaches the platform too, and it may be gone before it is asked to stop.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
