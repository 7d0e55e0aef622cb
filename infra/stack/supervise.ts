import { recordRun, restartDelay, restartPolicy } from '../restarts.ts';
import type { Component } from './component.ts';
import { clearProcessGroup, crashed, type Daemon, readPid, recordedPid, sleep } from './processes.ts';

// The stack's watcher: a daemon whose pid file is there but whose process is gone has crashed (an
// intended `npm run stack -- stop` removes the file first), and is started again with a backoff
// (infra/restarts.ts). Components are looked at in start order, one restart at a time, so when
// several died the registry comes back after the Postgres it keeps its schemas in.

export interface StackLog {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

interface Watched {
  component: Component;
  /** When the component was last seen started (by this watcher, or at its own start). */
  upSince: number;
  uptimesMs: number[];
  /** When found crashed: the time of the next attempt to start it. */
  restartAt?: number;
  diedAt?: number;
}

export interface StackWatch {
  /** Stops watching; a restart under way finishes on its own (its daemon is detached). */
  stop(): void;
}

export function superviseStack(
  components: readonly Component[],
  log: StackLog,
  { pollMs = 1_000, policy = restartPolicy } = {},
): StackWatch {
  const watched: Watched[] = components.map((component) => ({
    component,
    upSince: Date.now(),
    uptimesMs: [],
  }));
  let running = true;

  async function check(entry: Watched): Promise<void> {
    const { component } = entry;
    const dead = component.daemons.filter(crashed);
    if (dead.length === 0) {
      entry.restartAt = undefined;
      return;
    }
    const now = Date.now();
    if (entry.restartAt === undefined) {
      entry.diedAt = now;
      entry.uptimesMs = recordRun(entry.uptimesMs, now - entry.upSince);
      const delayMs = restartDelay(entry.uptimesMs, policy);
      entry.restartAt = now + delayMs;
      log.warn(`${component.name}: ${describe(dead)} died; restarting in ${delayMs / 1000} s`);
      return;
    }
    if (now < entry.restartAt) return;
    const started = Date.now();
    try {
      for (const daemon of dead) await clearProcessGroup(recordedPid(daemon)!);
      await component.recover?.();
      await component.start((line) => log.info(`${component.name}: ${line}`));
      entry.upSince = Date.now();
      entry.restartAt = undefined;
      log.warn(
        `${component.name}: restarted (${describe(component.daemons)}), healthy ` +
          `${seconds(entry.upSince - entry.diedAt!)} s after it was found dead (start took ${seconds(entry.upSince - started)} s)`,
      );
    } catch (error) {
      entry.uptimesMs = recordRun(entry.uptimesMs, 0);
      const delayMs = restartDelay(entry.uptimesMs, policy);
      entry.restartAt = Date.now() + delayMs;
      log.error(
        `${component.name}: restart failed, next attempt in ${delayMs / 1000} s: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  void (async () => {
    while (running) {
      for (const entry of watched) if (running) await check(entry);
      if (running) await sleep(pollMs);
    }
  })();
  log.info(`watching ${components.map((component) => component.name).join(', ')} every ${pollMs / 1000} s`);
  return {
    stop() {
      running = false;
    },
  };
}

function describe(daemons: readonly Daemon[]): string {
  return daemons
    .map((daemon) => `${daemon.name} (pid ${readPid(daemon) ?? recordedPid(daemon) ?? 'none'})`)
    .join(', ');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
