import { type ChildProcess, spawn } from 'node:child_process';

/**
 * The platform as `npm start` runs it (API and consumers, separate processes), on ports of its
 * own so a running `npm start` is left alone. Resolves once the API answers /readyz.
 */
export async function startPlatformProcesses(ports: { api: number; consumers: number }): Promise<{
  baseUrl: string;
  stop: () => Promise<void>;
}> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/platform.ts'], {
    env: {
      ...process.env,
      ORRERY_API_PORT: String(ports.api),
      ORRERY_CONSUMERS_PORT: String(ports.consumers),
      ORRERY_JOBS_PORT: String(ports.consumers + 1),
      ORRERY_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${ports.api}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    const consumersReady = await fetch(`http://127.0.0.1:${ports.consumers}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready && consumersReady) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error('the platform did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    // Ctrl-C reaches the platform too, and it may be gone before it is asked to stop.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
