import { type ChildProcess, spawn } from 'node:child_process';
import { platformNodeOptions } from './node-options.ts';
import { type PlatformUnit, platformUnits } from './platform-units.ts';
import { recordRun, restartDelay } from './restarts.ts';

// `npm start`'s last step, a supervisor: the API replicas, the consumers, the jobs, the sandbox
// hosts and (unless ORRERY_STACK=external) the stack's watcher as processes (platform-units.ts).
// One that dies (a non-zero exit or a signal) is started again after a backoff
// (infra/restarts.ts) while the others keep running; one that exits 0 by itself stays stopped.
// SIGTERM or SIGINT stops the restarts and drains them all.
process.env.ORRERY_SERVICE ??= 'supervisor';
const { config } = await import('../platform/config.ts');
const { logger } = await import('../platform/logger.ts');
const { supervisedVariable } = await import('../platform/shutdown.ts');

const { fleet } = config();
const units = platformUnits({
  machine: fleet.host.name,
  apiReplicas: fleet.local.apiReplicas,
  sandboxHosts: fleet.local.sandboxHosts,
  apiPort: config().api.port,
  hostPort: fleet.host.port,
  sandboxDir: config().sandboxDir,
  externalStack: process.env.ORRERY_STACK === 'external',
});

interface Supervised extends PlatformUnit {
  child?: ChildProcess;
  startedAt: number;
  uptimesMs: number[];
  restart?: NodeJS.Timeout;
}

const supervised: Supervised[] = units.map((unit) => ({ ...unit, startedAt: 0, uptimesMs: [] }));
let stopping = false;

function start(unit: Supervised): void {
  unit.restart = undefined;
  // The IPC channel is how a child learns that this supervisor died, even by SIGKILL
  // (platform/shutdown.ts): it then drains and ends, rather than serve with no one to restart it.
  const child = spawn(process.execPath, [...platformNodeOptions, '--import', 'tsx', unit.entry], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...unit.env, ORRERY_SERVICE: unit.name, [supervisedVariable]: '1' },
  });
  unit.child = child;
  unit.startedAt = Date.now();
  logger.info({ process: unit.name, pid: child.pid }, `${unit.name} started (pid ${child.pid})`);
  child.once('exit', (code, signal) => exited(unit, code, signal));
  // A process that could not be started at all (EAGAIN, say) emits no 'exit': count it as a crash.
  child.once('error', (error) => {
    logger.error({ process: unit.name, err: error }, `${unit.name} could not be started`);
    if (child.pid === undefined) exited(unit, 1, null);
  });
}

function exited(unit: Supervised, code: number | null, signal: NodeJS.Signals | null): void {
  const how = signal ? `signal ${signal}` : `code ${code}`;
  const pid = unit.child?.pid;
  unit.child = undefined;
  if (stopping) {
    logger.info({ process: unit.name, pid, code, signal }, `${unit.name} stopped (${how})`);
    if (code !== 0 && code !== null) process.exitCode = 1;
    if (supervised.every((other) => other.child === undefined)) process.exit();
    return;
  }
  if (code === 0) {
    logger.warn({ process: unit.name, pid, code }, `${unit.name} exited (code 0); not restarted`);
    if (supervised.every((other) => other.child === undefined && other.restart === undefined)) process.exit();
    return;
  }
  unit.uptimesMs = recordRun(unit.uptimesMs, Date.now() - unit.startedAt);
  const delayMs = restartDelay(unit.uptimesMs);
  logger.warn(
    { process: unit.name, pid, code, signal, restartInMs: delayMs },
    `${unit.name} died (${how}); restarting in ${delayMs / 1000} s`,
  );
  unit.restart = setTimeout(() => start(unit), delayMs);
}

function stopAll(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: draining every process');
  for (const unit of supervised) {
    clearTimeout(unit.restart);
    unit.restart = undefined;
    unit.child?.kill('SIGTERM');
  }
  if (supervised.every((unit) => unit.child === undefined)) process.exit();
  // Each process cuts its own drain short after the grace period; this is the backstop.
  setTimeout(() => {
    for (const unit of supervised) unit.child?.kill('SIGKILL');
  }, config().shutdownGraceMs + 5_000).unref();
}

process.on('SIGTERM', () => stopAll('SIGTERM'));
process.on('SIGINT', () => stopAll('SIGINT'));
for (const unit of supervised) start(unit);
