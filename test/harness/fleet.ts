import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { platformNodeOptions } from '../../infra/node-options.ts';
import { SandboxRuntime } from '../../sandbox-runtime/runtime.ts';
import { recordedIds } from '../../sandbox-runtime/state.ts';
import { eventually } from './eventually.ts';
import { freePort } from './ports.ts';
import { testFleet } from './sandbox-host.ts';

// A fleet of real platform processes for one test file (issue 47): API replicas and sandbox hosts
// started as `npm start` starts them (node with the platform's options, tsx, the process's
// entry), each on a port of its own, the hosts with state folders of their own, all in a fleet of
// the file's own name so the replicas place only on these hosts. A process can be killed as a
// crash (-9), stopped, and started again with the same configuration. The consumers are the
// test's (startTestPlatform), as the platform's own stack is shared.

export class FleetProcess {
  child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    private readonly entry: string,
    readonly port: number,
    private readonly environment: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and resolves once it answers /readyz 200. */
  async start(timeoutMs = 120_000): Promise<void> {
    const child = spawn(process.execPath, [...platformNodeOptions, '--import', 'tsx', this.entry], {
      env: { ...process.env, ORRERY_LOG_LEVEL: 'warn', ...this.environment, ORRERY_SERVICE: this.name },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    this.child = child;
    await eventually(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
        const ready = await fetch(`${this.url}/readyz`).then(
          (response) => response.ok,
          () => false,
        );
        return ready ? true : undefined;
      },
      timeoutMs,
      `${this.name} to answer /readyz 200`,
    );
  }

  /** As a crash: SIGKILL, no drain; resolves once the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await gone;
  }

  /** Stops (SIGSTOP) or continues (SIGCONT) the process: a host hung, then back. */
  hang(hung: boolean): void {
    this.child?.kill(hung ? 'SIGSTOP' : 'SIGCONT');
  }

  /** A drain (SIGTERM), as the supervisor stops it. */
  stop(): Promise<void> {
    return this.kill('SIGTERM');
  }
}

export interface TestFleet {
  name: string;
  apis: FleetProcess[];
  hosts: (FleetProcess & { dir: string })[];
  stop(): Promise<void>;
}

/** `apis` API replicas and `hosts` sandbox hosts, started and ready (the hosts announced). */
export async function startFleet(options: {
  apis: number;
  hosts: number;
  environment?: Record<string, string>;
}): Promise<TestFleet> {
  const name = testFleet();
  const common = { ORRERY_SANDBOX_FLEET: name, ...options.environment };
  const apiPorts = await Promise.all(Array.from({ length: options.apis }, freePort));
  const apis = apiPorts.map(
    (port, i) =>
      new FleetProcess(`api-${i + 1}`, 'api/main.ts', port, { ...common, ORRERY_API_PORT: String(port) }),
  );
  const apiUrls = apis.map((api) => api.url).join(',');
  const hosts = await Promise.all(
    Array.from({ length: options.hosts }, async (_, i) => {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), `orrery-fleet-host-${i + 1}-`));
      const host = new FleetProcess(`sandbox-host-${i + 1}`, 'sandbox-host/main.ts', port, {
        ...common,
        ORRERY_SANDBOX_DIR: dir,
        ORRERY_SANDBOX_HOST_PORT: String(port),
        ORRERY_SANDBOX_HOST_URL: `http://127.0.0.1:${port}`,
        ORRERY_SANDBOX_HOST_API_URL: apiUrls,
        ORRERY_SANDBOX_HOST_NAME: `fleet-test-${i + 1}`,
      });
      return Object.assign(host, { dir });
    }),
  );
  // The APIs first: a host is ready once one of them took its announcement.
  await Promise.all(apis.map((api) => api.start()));
  await Promise.all(hosts.map((host) => host.start()));
  return {
    name,
    apis,
    hosts,
    async stop() {
      await Promise.all([...apis, ...hosts].map((each) => each.stop()));
      for (const host of hosts) await clearHost(host.dir);
    },
  };
}

/** Destroys what a host left in its state folder (its processes too) and removes the folder. */
export async function clearHost(dir: string): Promise<void> {
  const runtime = new SandboxRuntime({ dir });
  for (const id of recordedIds(dir)) await runtime.destroy(id).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

/** A call to one process of the fleet with an API key: a JSON body, raw bytes, or none. */
export function callWithKey(
  process: { url: string },
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  const raw = body instanceof Uint8Array;
  return fetch(`${process.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined
        ? {}
        : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }),
    },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
}

/** An answer's JSON, once its status is the one expected (the body is in the failure's message). */
export async function answered(
  response: Promise<Response>,
  status = 200,
): Promise<{ data: ReturnType<typeof JSON.parse> }> {
  const answer = await response;
  const text = await answer.text();
  expect(answer.status, text).toBe(status);
  return JSON.parse(text);
}
