import type { Config } from '../../platform/config.ts';
import { clickhouseComponent } from './clickhouse.ts';
import { type Component, stackPaths } from './component.ts';
import { ensureStackPackages } from './install.ts';
import { kafkaComponent } from './kafka.ts';
import { modelComponent } from './model.ts';
import { postgresComponent } from './postgres.ts';
import { readPid, stopDaemon } from './processes.ts';

const running = (component: Component) => component.daemons.some((daemon) => readPid(daemon) !== undefined);

async function stopComponent(component: Component): Promise<boolean> {
  let stopped = false;
  for (const daemon of component.daemons) if (await stopDaemon(daemon)) stopped = true;
  return stopped;
}

import { registryComponent } from './registry.ts';

/**
 * In start order: the registry keeps its schemas in Postgres. The default model last, and only
 * when the platform serves it (config.inference.localModel: ORRERY_MODELS unset, and
 * ORRERY_DEFAULT_MODEL not `off`).
 */
export function stackComponents(config: Config): Component[] {
  const { localModel } = config.inference;
  return [
    postgresComponent(config),
    clickhouseComponent(config),
    kafkaComponent(config),
    registryComponent(config),
    ...(localModel ? [modelComponent(config, localModel)] : []),
  ];
}

export type StartOutcome = 'reused' | 'started';

/** Idempotent: a healthy component is reused, anything else is installed and started. */
export async function startStack(
  config: Config,
  log: (line: string) => void,
): Promise<Record<string, StartOutcome>> {
  await ensureStackPackages(log);
  const outcomes: Record<string, StartOutcome> = {};
  for (const component of stackComponents(config)) {
    if (await component.healthy().catch(() => false)) {
      outcomes[component.name] = 'reused';
    } else {
      if (running(component)) {
        log(`${component.name}: a previous process is running but not healthy; restarting it`);
        await stopComponent(component);
      }
      component.install(log);
      await component.recover?.();
      log(`${component.name}: starting on port ${component.port}`);
      const started = Date.now();
      await component.start(log);
      log(`${component.name}: healthy after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      outcomes[component.name] = 'started';
    }
    await component.provision?.();
  }
  return outcomes;
}

export async function stopStack(config: Config, log: (line: string) => void): Promise<void> {
  // The default model too when it is no longer served (started before ORRERY_MODELS was set):
  // `stop` leaves nothing running.
  if (!config.inference.localModel && (await stopDaemon(stackPaths(config, 'model').daemon)))
    log('model: stopped');
  for (const component of stackComponents(config).reverse()) {
    if (await stopComponent(component)) log(`${component.name}: stopped`);
  }
}

export async function stackStatus(
  config: Config,
): Promise<Record<string, 'healthy' | 'unhealthy' | 'stopped'>> {
  const status: Record<string, 'healthy' | 'unhealthy' | 'stopped'> = {};
  for (const component of stackComponents(config)) {
    if (await component.healthy().catch(() => false)) status[component.name] = 'healthy';
    else status[component.name] = running(component) ? 'unhealthy' : 'stopped';
  }
  return status;
}
