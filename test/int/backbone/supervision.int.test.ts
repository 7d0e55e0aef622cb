import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Component } from '../../../infra/stack/component.ts';
import { isAlive, readPid } from '../../../infra/stack/processes.ts';
import { eventually } from '../../harness/platform.ts';
import { type PrivateStack, startPrivateStack } from '../../harness/private-stack.ts';
import { freePort } from '../../harness/secure-cluster.ts';

// `npm start`'s supervisor (infra/platform.ts) as `npm start` runs it, on a stack of the test's
// own (test/harness/private-stack.ts; killing the shared stack's daemons would fail whatever else
// runs on it): a platform process killed with -9 serves again while the others keep their pids,
// and each stack daemon killed with -9 is started again by the stack's watcher. Every wait is for what the
// supervisor logs or a health check answers, bounded.

interface LogLine {
  service: string;
  level: number;
  msg: string;
  process?: string;
  pid?: number;
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
}

const log = (line: string) => process.stderr.write(`[supervision] ${line}\n`);
const lines: LogLine[] = [];
let stack: PrivateStack;
let supervisor: ChildProcess;
let exited: Promise<number | null>;
const ports = { api: 0, consumers: 0, jobs: 0 };

beforeAll(async () => {
  stack = await startPrivateStack('supervision', log);
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  supervisor = spawn(process.execPath, ['--import', 'tsx', 'infra/platform.ts'], {
    env: {
      ...process.env,
      ...stack.environment,
      ORRERY_API_PORT: String(ports.api),
      ORRERY_CONSUMERS_PORT: String(ports.consumers),
      ORRERY_JOBS_PORT: String(ports.jobs),
      ORRERY_SANDBOX_DIR: mkdtempSync(join(tmpdir(), 'orrery-supervision-sandboxes-')),
      ORRERY_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  exited = new Promise((resolve) => supervisor.once('exit', (code) => resolve(code)));
  createInterface({ input: supervisor.stdout! }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    lines.push(line);
    if ((line.service === 'supervisor' || line.service === 'stack') && line.level >= 40)
      log(`${line.service}: ${line.msg}`);
  });
  for (const name of ['api', 'consumers', 'jobs'] as const)
    await eventually(() => ready(name), 120_000, `${name} ready`);
}, 300_000);

afterAll(async () => {
  if (supervisor?.exitCode === null && supervisor.signalCode === null) {
    supervisor.kill('SIGKILL');
    for (const name of ['api', 'consumers', 'jobs', 'stack']) {
      const pid = lastPid(name);
      if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  await stack?.stop();
}, 120_000);

/** The pid of the process's latest start, from the supervisor's log. */
function lastPid(name: string): number | undefined {
  return lines.findLast(
    (line) => line.service === 'supervisor' && line.msg === `${name} started (pid ${line.pid})`,
  )?.pid;
}

async function ready(name: keyof typeof ports): Promise<true | undefined> {
  const response = await fetch(`http://127.0.0.1:${ports[name]}/readyz`).catch(() => undefined);
  return response?.status === 200 ? true : undefined;
}

/** Kills the process with -9 and waits until a new one of it answers /readyz 200. */
async function killAndAwaitReturn(name: 'api' | 'consumers'): Promise<{ died: LogLine; ms: number }> {
  const pid = lastPid(name)!;
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const restarted = await eventually(
    async () => {
      const now = lastPid(name);
      return now !== pid && (await ready(name)) ? now : undefined;
    },
    60_000,
    `${name} serving again`,
  );
  const ms = Date.now() - killedAt;
  log(`${name}: pid ${pid} killed, pid ${restarted} ready ${ms} ms later`);
  const died = lines.find((line) => line.process === name && line.pid === pid && line.msg.includes('died'))!;
  return { died, ms };
}

describe('the platform supervisor', () => {
  it('serves the API again after a kill -9 while the consumers and jobs keep running', async () => {
    const others = { consumers: lastPid('consumers')!, jobs: lastPid('jobs')!, stack: lastPid('stack')! };
    const { died } = await killAndAwaitReturn('api');
    expect(died).toMatchObject({ level: 40, signal: 'SIGKILL', code: null, restartInMs: 500 });
    expect(died.msg).toBe('api died (signal SIGKILL); restarting in 0.5 s');
    for (const [name, pid] of Object.entries(others)) {
      expect(lastPid(name)).toBe(pid);
      expect(isAlive(pid)).toBe(true);
    }
    expect(lines.filter((line) => line.service === 'supervisor' && line.msg.includes('died'))).toHaveLength(
      1,
    );
  }, 90_000);

  it('brings the consumers back after a kill -9, the API untouched', async () => {
    const api = lastPid('api')!;
    const { died } = await killAndAwaitReturn('consumers');
    expect(died).toMatchObject({ signal: 'SIGKILL', restartInMs: 500 });
    expect([lastPid('api'), isAlive(api)]).toEqual([api, true]);
  }, 90_000);
});

describe("the stack's watcher", () => {
  const watcherSaid = (component: Component, prefix: string) =>
    lines.findIndex(
      (line) => line.service === 'stack' && line.msg.startsWith(`${component.name}: ${prefix}`),
    );

  /** Kills the components' daemons with -9 together and waits until the watcher says each is healthy again. */
  async function killAndAwaitHealthy(components: Component[], timeoutMs: number): Promise<void> {
    const killed = components.map((component) => ({ component, pid: readPid(component.daemons[0]!)! }));
    const killedAt = Date.now();
    for (const { pid } of killed) process.kill(pid, 'SIGKILL');
    for (const { component, pid } of killed) {
      const restarted = await eventually(
        async () => {
          const now = readPid(component.daemons[0]!);
          if (
            now === undefined ||
            now === pid ||
            watcherSaid(component, `restarted (${component.name} (pid ${now}))`) < 0
          )
            return undefined;
          return (await component.healthy().catch(() => false)) ? now : undefined;
        },
        timeoutMs,
        `${component.name} restarted by the watcher and healthy`,
      );
      log(`${component.name}: pid ${pid} killed, pid ${restarted} healthy ${Date.now() - killedAt} ms later`);
      expect(
        watcherSaid(component, `${component.name} (pid ${pid}) died; restarting in 0.5 s`),
      ).toBeGreaterThanOrEqual(0);
    }
  }

  it('starts ClickHouse again after a kill -9', async () => {
    await killAndAwaitHealthy([stack.clickhouse], 60_000);
  }, 90_000);

  it('starts Postgres and the registry again after both are killed with -9, Postgres first', async () => {
    const killedAt = Date.now();
    await killAndAwaitHealthy([stack.postgres, stack.registry], 120_000);
    expect(watcherSaid(stack.postgres, 'restarted')).toBeLessThan(watcherSaid(stack.registry, 'restarted'));
    await eventually(() => ready('api'), 60_000, 'api ready after Postgres came back');
    log(`api: ready ${Date.now() - killedAt} ms after Postgres and the registry were killed`);
  }, 180_000);

  it('starts Kafka again after a kill -9, and the API answers ready again', async () => {
    const killedAt = Date.now();
    await killAndAwaitHealthy([stack.kafka], 90_000);
    await eventually(() => ready('api'), 60_000, 'api ready after Kafka came back');
    log(`api: ready ${Date.now() - killedAt} ms after Kafka was killed`);
  }, 180_000);
});

describe('stopping', () => {
  it('drains every process on SIGTERM, exits 0, and leaves the stack running', async () => {
    const pids = ['api', 'consumers', 'jobs', 'stack'].map((name) => lastPid(name)!);
    supervisor.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(
      lines
        .filter((line) => line.msg.endsWith('stopped (code 0)'))
        .map((line) => line.process)
        .sort(),
    ).toEqual(['api', 'consumers', 'jobs', 'stack']);
    expect(await stack.clickhouse.healthy()).toBe(true);
  }, 60_000);
});
