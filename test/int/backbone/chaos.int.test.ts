import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Component } from '../../../infra/stack/component.ts';
import { isAlive, readPid } from '../../../infra/stack/processes.ts';
import { type ClickHouseClient, createClickHouse } from '../../../platform/clickhouse.ts';
import { config } from '../../../platform/config.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { expectKeptExactlyOnce } from '../../harness/chaos-kept.ts';
import { type ChaosLoad, type Met, startChaosLoad } from '../../harness/chaos-load.ts';
import { type ModelServer, startModelServer } from '../../harness/model-server.ts';
import { eventually } from '../../harness/platform.ts';
import { freePort } from '../../harness/ports.ts';
import { type PrivateStack, startPrivateStack } from '../../harness/private-stack.ts';

// Any single failure survived without a person (issue 11, items 1 and 6): `npm start`'s supervisor
// (infra/platform.ts) runs the platform on a stack of the test's own (test/harness/private-stack.ts;
// killing the shared stack's daemons would fail whatever else runs on it) under OTLP and title
// load, and the API, the consumers, ClickHouse, Postgres, the default model's server (served beside
// the test's own model) and Kafka are killed with -9 in turn.
// Each comes back by itself while the others keep their pids; the load meets only 200s and
// well-formed 503s with Retry-After (no 401, no 200 refusing spans in partial_success, and no
// missing answer while the API process lives); at the end every acknowledged span (answered 200
// with nothing refused) is stored exactly once and every answered title billed once. Last, the
// supervisor itself is killed -9: its processes end by themselves (issue 49) and a new one starts
// clean on the same ports. After the API's kill, OTLP is served again as soon as titles are; while
// Postgres, Kafka or ClickHouse hangs (SIGSTOP), every request is answered within 2 s (reads of
// traces and analytics, a third load, with 503 while ClickHouse hangs; exports and titles, 200).
// Every wait is for what the supervisor logs or a health check or the load answers, bounded.

interface LogLine {
  service: string;
  level: number;
  msg: string;
  process?: string;
  pid?: number;
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
  /** A dead letter's consumer group, reason and error. */
  group?: string;
  reason?: string;
  error?: string;
}

const log = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const lines: LogLine[] = [];
const inputTokens = 12;
const ports = { api: 0, consumers: 0, jobs: 0, host: 0 };
let stack: PrivateStack;
let model: ModelServer;
let supervisor: ChildProcess;
let exited: Promise<number | null>;
let sandboxDir: string;
let load: ChaosLoad;
let pool: PgPool;
let clickhouse: ClickHouseClient;
let orgId: string;
/** While the API process is dead, a client may find no one listening: from the kill to ready. */
const apiDown: { from: number; to: number }[] = [];
/** What each kill cost: until the process or part was back, and until both loads were served. */
const recoveries: string[] = [];

/** `npm run admin -- …` against the private stack; an operator's command waits as long as it must. */
function admin(...args: string[]): Record<string, string> {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'api/admin/cli.ts', ...args, '--json'], {
    env: {
      ...process.env,
      ...stack.environment,
      ORRERY_SERVICE: 'admin',
      ORRERY_LOG_DESTINATION: 'stderr',
      ORRERY_LOG_LEVEL: 'error',
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  model = await startModelServer(() => ({
    line: 'Password reset help',
    usage: { input: inputTokens, output: 4 },
  }));
  // With the default model's server, served beside the test's own model (ORRERY_DEFAULT_MODEL=on).
  stack = await startPrivateStack('chaos', log, { withModel: true });
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  sandboxDir = mkdtempSync(join(tmpdir(), 'orrery-chaos-sandboxes-'));
  startSupervisor();
  for (const name of ['api', 'consumers', 'jobs', 'host'] as const)
    await eventually(() => ready(name), 120_000, `${name} ready`);
  pool = createPgPool(2, stack.config.postgres.url);
  clickhouse = createClickHouse({
    url: stack.config.clickhouse.url,
    database: stack.config.clickhouse.database,
  });

  orgId = admin('org', 'create', '--name', 'Chaos').orgId!;
  admin('tracing', 'enable', '--org', orgId);
  admin('credit', 'grant', '--org', orgId, '--cents', '10000000');
  const { key } = admin('key', 'create', '--org', orgId, '--scopes', 'traces:write,inference:invoke');
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  await eventually(
    async () => {
      const me = await fetch(`${apiUrl}/api/me`, { headers: { authorization: `Bearer ${key}` } });
      return me.status === 200 ? true : undefined;
    },
    30_000,
    'the key known to the API',
  );
  load = startChaosLoad({ apiUrl, key: key!, model: 'chaos', exporters: 2, titlers: 2, readers: 1 });
}, 400_000);

/** `npm start`'s supervisor on the private stack; its log lines (and its children's) kept in `lines`. */
function startSupervisor(): void {
  supervisor = spawn(process.execPath, ['--import', 'tsx', 'infra/platform.ts'], {
    env: {
      ...process.env,
      ...stack.environment,
      ORRERY_API_PORT: String(ports.api),
      ORRERY_CONSUMERS_PORT: String(ports.consumers),
      ORRERY_JOBS_PORT: String(ports.jobs),
      ORRERY_SANDBOX_HOST_PORT: String(ports.host),
      ORRERY_SANDBOX_DIR: sandboxDir,
      ORRERY_MODELS: JSON.stringify([{ name: 'chaos', writes: ['titles'], baseUrl: model.baseUrl }]),
      ORRERY_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = supervisor;
  exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
  createInterface({ input: started.stdout! }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    lines.push(line);
    // The watcher's and supervisor's warnings, and any error but librdkafka's, which it logs for
    // each refused connection while Kafka is down.
    const ours = line.service === 'supervisor' || line.service === 'stack';
    if ((ours && line.level >= 40) || (line.level >= 50 && !line.msg.startsWith('kafka: ')))
      log(
        `${line.service}: ${line.msg}${line.reason ? ` (${line.group}, ${line.reason}: ${line.error})` : ''}`,
      );
  });
}

afterAll(async () => {
  await load?.stop(Date.now());
  if (supervisor?.exitCode === null && supervisor.signalCode === null) {
    supervisor.kill('SIGKILL');
    for (const name of ['api', 'consumers', 'jobs', 'sandbox-host', 'stack']) {
      const pid = lastPid(name);
      if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  await Promise.all([pool?.end(), clickhouse?.close(), model?.close()]);
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

/** Waits until both loads were served `count` more times than when called: the platform serves. */
async function bothServed(what: string, killedAt: number, count = 3, since = 'the kill'): Promise<void> {
  const from = { otlp: load.served('otlp'), title: load.served('title') };
  await eventually(
    async () =>
      load.served('otlp') >= from.otlp + count && load.served('title') >= from.title + count
        ? true
        : undefined,
    120_000,
    `OTLP and titles served again after ${what}`,
  );
  recoveries.push(`${what}: both loads served again ${Date.now() - killedAt} ms after ${since}`);
  log(recoveries.at(-1)!);
}

/** The other platform processes' pids, to check a kill took only its own. */
const platformPids = () =>
  Object.fromEntries(
    ['api', 'consumers', 'jobs', 'sandbox-host', 'stack'].map((name) => [name, lastPid(name)]),
  );

describe('the platform supervisor, under load', () => {
  it('serves the API again after a kill -9 while the consumers and jobs keep running', async () => {
    // Killed while it serves both loads, so it dies holding the org's admission lease.
    await eventually(
      async () => (load.served('otlp') >= 3 && load.served('title') >= 3 ? true : undefined),
      60_000,
      'both loads served before the kill',
    );
    const before = platformPids();
    const pid = before.api!;
    const leaseHeld = await pool.query(
      'SELECT 1 FROM admission_leases WHERE org_id = $1 AND expires_at > now()',
      [orgId],
    );
    const killedAt = Date.now();
    const window = { from: killedAt, to: Number.POSITIVE_INFINITY };
    apiDown.push(window);
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => (lastPid('api') !== pid && (await ready('api')) ? true : undefined),
      60_000,
      'the API serving again',
    );
    window.to = Date.now();
    recoveries.push(`api: ready again ${window.to - killedAt} ms after the kill`);
    const died = lines.find(
      (line) => line.process === 'api' && line.pid === pid && line.msg.includes('died'),
    );
    expect(died).toMatchObject({ level: 40, signal: 'SIGKILL', code: null, restartInMs: 500 });
    expect(platformPids()).toEqual({ ...before, api: lastPid('api') });
    await bothServed('api', killedAt);
    // OTLP serves as soon as the other routes do: the dead process's org lease is free at once, its
    // holder gone, though its time is not up (issue 49, item 5).
    const first = {
      otlp: load.firstServedAfter('otlp', killedAt)!,
      title: load.firstServedAfter('title', killedAt)!,
    };
    recoveries.push(
      `api: first OTLP 200 ${first.otlp - killedAt} ms, first title 200 ${first.title - killedAt} ms after the kill`,
    );
    expect(leaseHeld.rowCount).toBe(1);
    expect(first.otlp - first.title).toBeLessThan(1_000);
  }, 120_000);

  it('brings the consumers back after a kill -9, the API untouched', async () => {
    const before = platformPids();
    const pid = before.consumers!;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => (lastPid('consumers') !== pid && (await ready('consumers')) ? true : undefined),
      60_000,
      'the consumers back',
    );
    recoveries.push(`consumers: ready again ${Date.now() - killedAt} ms after the kill`);
    // The consumers and the jobs name the stores they watch.
    for (const name of ['consumers', 'jobs'] as const) {
      const readiness = await (await fetch(`http://127.0.0.1:${ports[name]}/readyz`)).json();
      expect(readiness).toEqual({
        status: 'ready',
        checks: { postgres: 'ok', clickhouse: 'ok', kafka: 'ok' },
      });
    }
    expect(platformPids()).toEqual({ ...before, consumers: lastPid('consumers') });
    await bothServed('consumers', killedAt);
  }, 120_000);
});

describe("the stack's watcher, under load", () => {
  const watcherSaid = (component: Component, prefix: string) =>
    lines.findIndex(
      (line) => line.service === 'stack' && line.msg.startsWith(`${component.name}: ${prefix}`),
    );

  /** Kills the component's daemon with -9 and waits until the watcher has it healthy again. */
  async function killAndAwaitHealthy(component: Component, timeoutMs: number): Promise<number> {
    const before = platformPids();
    const pid = readPid(component.daemons[0]!)!;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => {
        const now = readPid(component.daemons[0]!);
        if (
          now === undefined ||
          now === pid ||
          watcherSaid(component, `restarted (${component.name} (pid ${now}))`) < 0
        )
          return undefined;
        return (await component.healthy().catch(() => false)) ? true : undefined;
      },
      timeoutMs,
      `${component.name} restarted by the watcher and healthy`,
    );
    recoveries.push(`${component.name}: healthy again ${Date.now() - killedAt} ms after the kill`);
    expect(
      watcherSaid(component, `${component.name} (pid ${pid}) died; restarting in 0.5 s`),
    ).toBeGreaterThanOrEqual(0);
    // No platform process died of it: the pools and the producer outlived their server.
    expect(platformPids()).toEqual(before);
    return killedAt;
  }

  it('starts ClickHouse again after a kill -9; exports and titles are served throughout', async () => {
    const refusedBefore = load.refusals.length;
    const killedAt = await killAndAwaitHealthy(stack.clickhouse, 90_000);
    await bothServed('clickhouse', killedAt);
    // Neither surface needs ClickHouse to answer: the consumers wait for it and catch up. Only
    // the reads of traces and analytics may have met 503s meanwhile.
    expect(load.refusals.slice(refusedBefore).filter((met) => met.surface !== 'read')).toEqual([]);
  }, 150_000);

  it('starts Postgres again after a kill -9; the load is refused meanwhile, then served', async () => {
    const killedAt = await killAndAwaitHealthy(stack.postgres, 120_000);
    // The registry keeps its schemas in Postgres: it may have died with it, and is back too.
    await eventually(
      async () => ((await stack.registry.healthy().catch(() => false)) ? true : undefined),
      120_000,
      'the registry healthy',
    );
    await bothServed('postgres', killedAt);
  }, 300_000);

  it("starts the default model's server again after a kill -9, though ORRERY_MODELS lists a model of its own", async () => {
    // The platform serves it beside the test's model, so the watcher watches it (issue 49, item 4).
    const killedAt = await killAndAwaitHealthy(stack.model!, 60_000);
    await bothServed('model', killedAt);
  }, 120_000);

  it('starts Kafka again after a kill -9; the load is refused meanwhile, then served', async () => {
    const killedAt = await killAndAwaitHealthy(stack.kafka, 120_000);
    await eventually(() => ready('api'), 60_000, 'api ready after Kafka came back');
    await bothServed('kafka', killedAt);
  }, 300_000);
});

describe('a hung part, under load', () => {
  /** The daemon's process and its children (Postgres's backends, which answer the queries). */
  const processTree = (pid: number): number[] => {
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.trim();
    return [pid, ...(children ? children.split('\n').map(Number) : [])];
  };

  /**
   * Stops the component's processes (SIGSTOP: they hold their connections and answer nothing) until
   * each surface that needs it met its refusals (after the API said it is away, for a dependency
   * /readyz reports), then continues them. Every request in flight meanwhile must have been
   * answered within 2 s of the stop or of its sending; the surfaces that do not need it, served.
   */
  async function hangAndContinue(
    component: Component,
    away: 'postgres' | 'kafka' | 'clickhouse',
    refused: readonly Met['surface'][],
  ): Promise<void> {
    const pids = processTree(readPid(component.daemons[0]!)!);
    const stoppedAt = Date.now();
    const refusedBefore = load.refusals.length;
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      // ClickHouse is not among /readyz's checks: the API serves exports and titles without it.
      if (away !== 'clickhouse')
        await eventually(
          async () => {
            const readiness = (await (await fetch(`http://127.0.0.1:${ports.api}/readyz`)).json()) as {
              checks: Record<string, string>;
            };
            return readiness.checks[away] === 'unreachable' ? true : undefined;
          },
          30_000,
          `the API seeing ${away} away`,
        );
      const refusedSince = (surface: Met['surface']) =>
        load.exchanges.filter(
          (met) => met.surface === surface && met.sentAt > stoppedAt && met.status === 503,
        ).length;
      await eventually(
        async () => (refused.every((surface) => refusedSince(surface) >= 3) ? true : undefined),
        30_000,
        `${refused.join(' and ')} refused while it hangs`,
      );
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    const continuedAt = Date.now();
    const during = load.exchanges.filter((met) => met.answeredAt > stoppedAt && met.sentAt < continuedAt);
    const waited = during.map((met) => ({
      ...met,
      waitedMs: met.answeredAt - Math.max(met.sentAt, stoppedAt),
    }));
    recoveries.push(
      `${component.name} hung: ${during.length} requests met it, the longest answered in ` +
        `${Math.max(...waited.map((met) => met.waitedMs))} ms`,
    );
    expect(waited.filter((met) => met.waitedMs > 2_000)).toEqual([]);
    // Every one of them answered (no 0: nothing was cut by the client's own timeout).
    expect(during.filter((met) => met.status === 0)).toEqual([]);
    expect(
      load.refusals
        .slice(refusedBefore)
        .filter((met) => met.at < continuedAt && !refused.includes(met.surface)),
    ).toEqual([]);
    await bothServed(`${component.name} hung`, continuedAt, 3, 'it continued');
    const reads = load.served('read');
    await eventually(
      async () => (load.served('read') >= reads + 3 ? true : undefined),
      60_000,
      `reads served again after ${component.name} continued`,
    );
  }

  it('answers every request within 2 s while Postgres hangs, with 503, and serves again once it continues', async () => {
    await hangAndContinue(stack.postgres, 'postgres', ['otlp', 'title']);
  }, 120_000);

  it('answers every request within 2 s while Kafka hangs, with 503, and serves again once it continues', async () => {
    await hangAndContinue(stack.kafka, 'kafka', ['otlp', 'title']);
  }, 120_000);

  it('answers every read within 2 s while ClickHouse hangs, with 503, serving exports and titles throughout', async () => {
    await hangAndContinue(stack.clickhouse, 'clickhouse', ['read']);
  }, 120_000);
});

describe('what the load met, and what was kept', () => {
  it('only 200s and well-formed 503s with Retry-After, and no missing answer while the API lived', async () => {
    await load.stop(Date.now() + 60_000);
    for (const line of recoveries) log(line);
    const bySurface = (surface: string) => load.refusals.filter((met) => met.surface === surface).length;
    log(
      `served ${load.served('otlp')} exports and ${load.served('title')} titles; refused or unanswered ` +
        `${bySurface('otlp')} exports and ${bySurface('title')} titles (retried)`,
    );
    const duringApiDeath = (at: number) => apiDown.some((window) => at >= window.from && at <= window.to);
    const wrong = load.refusals.filter(
      (met) => met.problem !== undefined && !(met.status === 0 && duringApiDeath(met.at)),
    );
    expect(wrong).toEqual([]);
    expect(load.refusals.filter((met) => met.status === 401)).toEqual([]);
  }, 90_000);

  it('stores every acknowledged span exactly once, and bills every answered title once', async () => {
    await expectKeptExactlyOnce({ load, clickhouse, pool, orgId, inputTokens, log });
  }, 300_000);
});

describe('stopping', () => {
  it('ends every process when the supervisor is killed -9, and a new supervisor starts clean', async () => {
    const names = ['api', 'consumers', 'jobs', 'sandbox-host', 'stack'];
    const pids = names.map((name) => lastPid(name)!);
    supervisor.kill('SIGKILL');
    expect(await exited).toBe(null);
    // Each drains (the grace period at most) and ends, rather than serve with no one to restart it.
    await eventually(
      async () => (pids.some(isAlive) ? undefined : true),
      config().shutdownGraceMs + 15_000,
      'every process of the killed supervisor ended',
    );
    const told = lines.filter((line) => line.msg.startsWith('the supervisor is gone'));
    expect(new Set(told.map((line) => line.service))).toEqual(new Set(names));
    startSupervisor();
    for (const name of ['api', 'consumers', 'jobs', 'host'] as const)
      await eventually(() => ready(name), 120_000, `${name} ready again`);
    expect(names.map((name) => lastPid(name))).not.toContain(undefined);
    expect(names.map((name) => lastPid(name)).filter((pid) => pids.includes(pid!))).toEqual([]);
  }, 240_000);

  it('drains every process on SIGTERM, exits 0, and leaves the stack running', async () => {
    const pids = ['api', 'consumers', 'jobs', 'sandbox-host', 'stack'].map((name) => lastPid(name)!);
    supervisor.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await stack.clickhouse.healthy()).toBe(true);
  }, 60_000);
});
