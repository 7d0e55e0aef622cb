import { DockerComposeEnvironment, Wait } from 'testcontainers';
import { provision } from '../../../infra/provision.ts';
import { parseConfig } from '../../../platform/config.ts';
import { defaultRootfsCache, ensureRootfs } from '../../../sandbox-runtime/rootfs.ts';
import type { StackProvider } from './provider.ts';

/**
 * The same stack from the official images (STACK=testcontainers), for machines with Docker: it
 * brings up infra/compose.yaml, the one definition of the Docker stack, on the local stack's
 * ports, so the default configuration points at it. It cannot run on our Docker-less CI machines.
 */
export const testcontainersProvider: StackProvider = {
  name: 'testcontainers',
  async start(log) {
    const environment = await new DockerComposeEnvironment(
      new URL('../../../infra', import.meta.url).pathname,
      'compose.yaml',
    )
      .withWaitStrategy('postgres-1', Wait.forHealthCheck())
      .withWaitStrategy('clickhouse-1', Wait.forHttp('/ping', 8123))
      .withWaitStrategy('kafka-1', Wait.forListeningPorts())
      .withWaitStrategy('registry-1', Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
      .up();
    await provision(parseConfig(), log);
    await ensureRootfs(defaultRootfsCache(), log);
    return { environment: {}, stop: () => environment.down().then(() => undefined) };
  },
};
