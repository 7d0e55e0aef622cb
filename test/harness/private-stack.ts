import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { clickhouseComponent } from '../../infra/stack/clickhouse.ts';
import type { Component } from '../../infra/stack/component.ts';
import { kafkaComponent } from '../../infra/stack/kafka.ts';
import { modelComponent } from '../../infra/stack/model.ts';
import { postgresComponent } from '../../infra/stack/postgres.ts';
import { stopDaemon } from '../../infra/stack/processes.ts';
import { registryComponent } from '../../infra/stack/registry.ts';
import { type Config, config, parseConfig } from '../../platform/config.ts';
import { freePort } from './ports.ts';

// A stack of the test's own beside the shared one, for tests that kill stack daemons: its own
// Postgres, ClickHouse, one-node Kafka and schema registry under the shared stack's folder, on free
// ports, started by the stack's own components (so as `npm start` starts them). Killing these
// disturbs no other test, and no other process consumes its topics.

export interface PrivateStack {
  root: string;
  /** The ORRERY_* variables that point a process (and a stack watcher) at this stack. */
  environment: Record<string, string>;
  config: Config;
  postgres: Component;
  clickhouse: Component;
  kafka: Component;
  registry: Component;
  /** The default model's server, when asked for (`withModel`). */
  model?: Component;
  stop(): Promise<void>;
}

/**
 * Starts the stack from nothing each time; Kafka's jars and the registry's are the shared stack's.
 * With `withModel`, the default model's server too (ORRERY_DEFAULT_MODEL=on, beside whatever
 * ORRERY_MODELS a process of the stack is given).
 */
export async function startPrivateStack(
  name: string,
  log: (line: string) => void,
  options: { withModel?: boolean } = {},
): Promise<PrivateStack> {
  const shared = config().stackDir;
  const root = join(shared, name);
  const environment: Record<string, string> = {
    ORRERY_STACK_DIR: root,
    ORRERY_POSTGRES_URL: `postgres://orrery:orrery@127.0.0.1:${await freePort()}/orrery`,
    ORRERY_CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}`,
    ORRERY_CLICKHOUSE_NATIVE_PORT: String(await freePort()),
    ORRERY_KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
    ORRERY_KAFKA_CONTROLLER_PORT: String(await freePort()),
    ORRERY_STACK_KAFKA_NODES: '1',
    ORRERY_REGISTRY_URL: `http://127.0.0.1:${await freePort()}`,
    ORRERY_TOPIC_REPLICATION_FACTOR: '1',
    ...(options.withModel
      ? { ORRERY_DEFAULT_MODEL: 'on', ORRERY_DEFAULT_MODEL_PORT: String(await freePort()) }
      : {}),
  };
  const stackConfig = parseConfig({ ...process.env, ...environment });
  const components = {
    postgres: postgresComponent(stackConfig),
    clickhouse: clickhouseComponent(stackConfig),
    kafka: kafkaComponent(stackConfig),
    registry: registryComponent(stackConfig),
  };
  const { localModel } = stackConfig.inference;
  const model = options.withModel && localModel ? modelComponent(stackConfig, localModel) : undefined;
  const all = [...Object.values(components), ...(model ? [model] : [])];
  const stop = async () => {
    for (const component of [...all].reverse())
      for (const daemon of component.daemons) await stopDaemon(daemon);
  };
  await stop();
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  mkdirSync(join(root, 'registry'));
  for (const installed of ['kafka-libs', 'registry/archive', 'registry/app'])
    if (existsSync(join(shared, installed))) symlinkSync(join(shared, installed), join(root, installed));
  for (const component of all) {
    component.install(log);
    await component.start(log);
    await component.provision?.();
  }
  // Provisioned as `npm start` provisions a stack it did not start: in a process of its own, since
  // the schemas go to the registry of the process's own configuration.
  const provisioning = spawnSync(process.execPath, ['--import', 'tsx', 'infra/cli.ts', 'start'], {
    env: { ...process.env, ...environment, ORRERY_STACK: 'external', ORRERY_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (provisioning.status !== 0) throw new Error(`provisioning failed:\n${provisioning.stderr}`);
  return { root, environment, config: stackConfig, ...components, model, stop };
}
