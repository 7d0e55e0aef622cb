import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { provision } from '../../infra/provision.ts';
import { clickhouseComponent } from '../../infra/stack/clickhouse.ts';
import type { Component } from '../../infra/stack/component.ts';
import { kafkaComponent } from '../../infra/stack/kafka.ts';
import { postgresComponent } from '../../infra/stack/postgres.ts';
import { stopDaemon } from '../../infra/stack/processes.ts';
import { type Config, config, parseConfig } from '../../platform/config.ts';
import { freePort } from './secure-cluster.ts';

// A stack of the test's own beside the shared one, for tests that kill stack daemons: its own
// Postgres, ClickHouse and one-node Kafka under the shared stack's folder, on free ports, started
// by the stack's own components (so as `npm start` starts them); the schema registry is the
// shared one. Killing these disturbs no other test, and no other process consumes its topics.

export interface PrivateStack {
  root: string;
  /** The ORRERY_* variables that point a process (and a stack watcher) at this stack. */
  environment: Record<string, string>;
  config: Config;
  postgres: Component;
  clickhouse: Component;
  kafka: Component;
  stop(): Promise<void>;
}

/** Starts the stack from nothing each time; Kafka's jars are the shared stack's. */
export async function startPrivateStack(name: string, log: (line: string) => void): Promise<PrivateStack> {
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
    ORRERY_TOPIC_REPLICATION_FACTOR: '1',
  };
  const stackConfig = parseConfig({ ...process.env, ...environment });
  const components = {
    postgres: postgresComponent(stackConfig),
    clickhouse: clickhouseComponent(stackConfig),
    kafka: kafkaComponent(stackConfig),
  };
  const all = Object.values(components);
  const stop = async () => {
    for (const component of [...all].reverse())
      for (const daemon of component.daemons) await stopDaemon(daemon);
  };
  await stop();
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  if (existsSync(join(shared, 'kafka-libs')))
    symlinkSync(join(shared, 'kafka-libs'), join(root, 'kafka-libs'));
  for (const component of all) {
    component.install(log);
    await component.start(log);
    await component.provision?.();
  }
  await provision(stackConfig, log);
  return { root, environment, config: stackConfig, ...components, stop };
}
