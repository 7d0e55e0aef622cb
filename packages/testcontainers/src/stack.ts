import { GenericContainer, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';
import { runLabel } from './cleanup.js';

// The stack Orrery runs on, one container per part on the caller's network, each found by the
// others under its network alias. The images are the ones `npm run containers -- build` makes
// from Debian's packages and Maven Central (no registry needed); any image that serves the same
// port with the same settings can stand in (`OrreryContainer.withImages`).

export interface StackImages {
  orrery: string;
  postgres: string;
  clickhouse: string;
  kafka: string;
  registry: string;
}

export const localImages: StackImages = {
  orrery: 'localhost/orrery:dev',
  postgres: 'localhost/orrery-postgres:15',
  clickhouse: 'localhost/orrery-clickhouse:18.16',
  kafka: 'localhost/orrery-kafka:4.1.1',
  registry: 'localhost/orrery-registry:3.0.9',
};

/** Where the platform's processes reach the stack, inside the network (ORRERY_* variables). */
export const stackEnvironment: Record<string, string> = {
  ORRERY_POSTGRES_URL: 'postgres://orrery:orrery@postgres:5432/orrery',
  ORRERY_CLICKHOUSE_URL: 'http://clickhouse:8123',
  ORRERY_KAFKA_BROKERS: 'kafka:9092',
  ORRERY_REGISTRY_URL: 'http://registry:8080',
};

export interface StartedStack {
  postgres: StartedTestContainer;
  clickhouse: StartedTestContainer;
  kafka: StartedTestContainer;
  registry: StartedTestContainer;
}

function part(
  image: string,
  network: StartedNetwork,
  alias: string,
  port: number,
  runId: string,
): GenericContainer {
  return new GenericContainer(image)
    .withLabels({ [runLabel]: runId })
    .withNetwork(network)
    .withNetworkAliases(alias)
    .withExposedPorts(port)
    .withStartupTimeout(120_000);
}

/** Postgres, ClickHouse and Kafka side by side, then Apicurio, whose storage is Postgres. */
export interface StackOptions {
  /**
   * A port of the host where Kafka also answers clients on the host (not only on the network):
   * Kafka tells a client the address to use, so it must be known before the broker starts.
   */
  kafkaHostPort?: number;
}

export async function startStack(
  images: StackImages,
  network: StartedNetwork,
  runId: string,
  options: StackOptions = {},
): Promise<StartedStack> {
  const kafkaPart = part(images.kafka, network, 'kafka', 9092, runId);
  if (options.kafkaHostPort !== undefined)
    kafkaPart
      .withExposedPorts({ container: 9094, host: options.kafkaHostPort })
      .withEnvironment({ KAFKA_HOST_ADDRESS: `127.0.0.1:${options.kafkaHostPort}` });
  const [postgres, clickhouse, kafka] = await Promise.all([
    part(images.postgres, network, 'postgres', 5432, runId)
      // Its first start makes the databases on a socket only; the port opens when it is ready.
      .withWaitStrategy(Wait.forListeningPorts())
      .start(),
    part(images.clickhouse, network, 'clickhouse', 8123, runId)
      .withWaitStrategy(Wait.forHttp('/ping', 8123))
      .start(),
    kafkaPart.withWaitStrategy(Wait.forLogMessage(/Kafka Server started/)).start(),
  ]);
  const registry = await part(images.registry, network, 'registry', 8080, runId)
    .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
    .start();
  return { postgres, clickhouse, kafka, registry };
}
