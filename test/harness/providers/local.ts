import { join } from 'node:path';
import { provision } from '../../../infra/provision.ts';
import { startStack } from '../../../infra/stack/index.ts';
import { parseConfig } from '../../../platform/config.ts';
import { defaultRootfsCache, ensureRootfs } from '../../../sandbox-runtime/rootfs.ts';
import type { StackProvider } from './provider.ts';

/**
 * The test run's own local stack (issue 49, item 7): the same components `npm start` runs, in a
 * folder and on ports of their own, so a platform that `npm start` keeps running on the local
 * stack and `npm test` neither feed nor starve each other's consumer groups, and share no topic,
 * database, sandbox folder or daemon (a test that stops or kills one disturbs only the tests).
 * Each port is the local stack's default plus 10,000, but Kafka's, plus 5,000 (the secure
 * cluster's tests take 29092 and up, test/harness/secure-cluster.ts); all are below 30,000, where
 * the tests' free ports start (test/harness/ports.ts). Kafka has one node, as the local
 * stack's by default.
 */
export function testStackEnvironment(stackDir = parseConfig({}).stackDir): Record<string, string> {
  return {
    ORRERY_STACK_DIR: join(stackDir, 'test'),
    ORRERY_POSTGRES_URL: 'postgres://orrery:orrery@127.0.0.1:25432/orrery',
    ORRERY_CLICKHOUSE_URL: 'http://127.0.0.1:28123',
    ORRERY_CLICKHOUSE_NATIVE_PORT: '29000',
    ORRERY_KAFKA_BROKERS: '127.0.0.1:24092',
    ORRERY_KAFKA_CONTROLLER_PORT: '24093',
    ORRERY_STACK_KAFKA_NODES: '1',
    ORRERY_REGISTRY_URL: 'http://127.0.0.1:28081',
    ORRERY_DEFAULT_MODEL_PORT: '28082',
    ORRERY_SANDBOX_DIR: join(stackDir, 'test', 'sandboxes'),
  };
}

/** The local processes of infra/ (no Docker): started, or reused when already healthy. */
export const localProvider: StackProvider = {
  name: 'local',
  async start(log) {
    const environment = testStackEnvironment();
    const config = parseConfig({ ...process.env, ...environment });
    const outcomes = await startStack(config, log);
    log(
      `stack: ${Object.entries(outcomes)
        .map(([name, outcome]) => `${name} ${outcome}`)
        .join(', ')}`,
    );
    await provision(config, log);
    await ensureRootfs(defaultRootfsCache(), log);
    return { environment, stop: async () => undefined };
  },
};
