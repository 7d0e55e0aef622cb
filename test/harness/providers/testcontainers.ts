import { randomUUID } from 'node:crypto';
import { Network } from 'testcontainers';
import { ensureEngine, testcontainersEnvironment } from '../../../infra/containers/engine.ts';
import { ensureBaseImage } from '../../../infra/containers/images.ts';
import { buildPartImages } from '../../../infra/containers/parts.ts';
import { provisionNewStack } from '../../../infra/provision.ts';
import { removeRun } from '../../../packages/testcontainers/src/cleanup.ts';
import { localImages, officialImages, startStack } from '../../../packages/testcontainers/src/stack.ts';
import { parseConfig } from '../../../platform/config.ts';
import { defaultRootfsCache, ensureRootfs } from '../../../sandbox-runtime/rootfs.ts';
import { freePort } from '../ports.ts';
import type { StackProvider } from './provider.ts';

/**
 * The stack in containers (STACK=testcontainers): the same images, configuration and start as
 * `@orrery/testcontainers`, on ports of the host that the tests' ORRERY_* variables then name. The
 * part images are the ones built here from Debian's packages and Maven Central (no registry), or
 * with STACK_IMAGES=official the parts' official images, pulled. The platform itself runs in
 * the tests' process, as with the local stack; Kafka also answers on the host for them.
 */
export const testcontainersProvider: StackProvider = {
  name: 'testcontainers',
  async start(log) {
    const config = parseConfig();
    const engine = await ensureEngine(config, log);
    Object.assign(process.env, testcontainersEnvironment(engine));
    await ensureBaseImage(engine, log);
    const official = process.env.STACK_IMAGES === 'official';
    if (!official) await buildPartImages(engine, config, log);
    const runId = randomUUID();
    const network = await new Network().start();
    try {
      const kafkaHostPort = await freePort();
      const stack = await startStack(official ? officialImages : localImages, network, runId, {
        kafkaHostPort,
      });
      const environment = {
        ORRERY_STACK: 'external',
        ORRERY_POSTGRES_URL: `postgres://orrery:orrery@127.0.0.1:${stack.postgres.getMappedPort(5432)}/orrery`,
        ORRERY_CLICKHOUSE_URL: `http://127.0.0.1:${stack.clickhouse.getMappedPort(8123)}`,
        ORRERY_KAFKA_BROKERS: `127.0.0.1:${kafkaHostPort}`,
        ORRERY_REGISTRY_URL: `http://127.0.0.1:${stack.registry.getMappedPort(8080)}`,
      };
      await provisionNewStack(parseConfig({ ...process.env, ...environment }), log);
      await ensureRootfs(defaultRootfsCache(), log);
      return {
        environment,
        stop: async () => {
          await removeRun(runId);
          await network.stop();
        },
      };
    } catch (error) {
      await removeRun(runId);
      await network.stop().catch(() => undefined);
      throw error;
    }
  },
};
