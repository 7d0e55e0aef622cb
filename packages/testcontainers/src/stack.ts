import {
  GenericContainer,
  getContainerRuntimeClient,
  ImageName,
  type StartedNetwork,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { runLabel } from './cleanup.js';
import {
  clickhouseConfiguration,
  kafkaConfiguration,
  type PartConfiguration,
  postgresConfiguration,
  registryConfiguration,
} from './configuration.js';
import { startPublishing } from './published-start.js';

// The stack Orrery runs on, one container per part on the caller's network, each found by the
// others under its network alias. Either image set takes the same configuration
// (configuration.ts): the parts' official images, or the ones `npm run containers -- build`
// makes from Debian's packages and Maven Central for machines no registry serves.

export interface StackImages {
  orrery: string;
  postgres: string;
  clickhouse: string;
  kafka: string;
  registry: string;
}

/** Orrery has no published image: both sets run the one `npm run containers -- build` makes. */
const orreryImage = 'localhost/orrery:dev';

export const officialImages: StackImages = {
  orrery: orreryImage,
  postgres: 'postgres:17',
  clickhouse: 'clickhouse/clickhouse-server:25.8',
  kafka: 'apache/kafka:4.1.1',
  registry: 'apicurio/apicurio-registry:3.0.9',
};

export const localImages: StackImages = {
  orrery: orreryImage,
  postgres: 'localhost/orrery-postgres:15',
  clickhouse: 'localhost/orrery-clickhouse:18.16',
  kafka: 'localhost/orrery-kafka:4.1.1',
  registry: 'localhost/orrery-registry:3.0.9',
};

const parts = ['postgres', 'clickhouse', 'kafka', 'registry'] as const;

/**
 * The local part images when the engine has all four (someone built them, so no registry is
 * needed), else the official ones, pulled on start.
 */
export function chooseImages(present: (image: string) => boolean): StackImages {
  return parts.every((part) => present(localImages[part])) ? localImages : officialImages;
}

/** `chooseImages` against the engine testcontainers talks to. */
export async function defaultImages(): Promise<StackImages> {
  const client = await getContainerRuntimeClient();
  const present = new Set<string>();
  for (const part of parts)
    if (await client.image.exists(ImageName.fromString(localImages[part]))) present.add(localImages[part]);
  return chooseImages((image) => present.has(image));
}

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
  configuration: PartConfiguration,
  network: StartedNetwork,
  alias: string,
  port: number,
  runId: string,
): GenericContainer {
  const container = new GenericContainer(image)
    .withLabels({ [runLabel]: runId })
    .withNetwork(network)
    .withNetworkAliases(alias)
    .withExposedPorts(port)
    .withEnvironment(configuration.environment)
    .withCopyContentToContainer(configuration.files ?? [])
    .withStartupTimeout(120_000);
  return configuration.command ? container.withCommand(configuration.command) : container;
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
  const kafkaHostAddress =
    options.kafkaHostPort === undefined ? undefined : `127.0.0.1:${options.kafkaHostPort}`;
  const kafkaPart = part(images.kafka, kafkaConfiguration(kafkaHostAddress), network, 'kafka', 9092, runId);
  if (options.kafkaHostPort !== undefined)
    kafkaPart.withExposedPorts({ container: 9094, host: options.kafkaHostPort });
  const [postgres, clickhouse, kafka] = await Promise.all([
    startPublishing(
      part(images.postgres, postgresConfiguration, network, 'postgres', 5432, runId)
        // Its first start makes the databases on a socket only; the port opens when it is ready.
        .withWaitStrategy(Wait.forListeningPorts()),
    ),
    startPublishing(
      part(images.clickhouse, clickhouseConfiguration, network, 'clickhouse', 8123, runId).withWaitStrategy(
        Wait.forHttp('/ping', 8123),
      ),
    ),
    startPublishing(kafkaPart.withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))),
  ]);
  const registry = await startPublishing(
    part(images.registry, registryConfiguration, network, 'registry', 8080, runId).withWaitStrategy(
      Wait.forHttp('/apis/ccompat/v7/subjects', 8080),
    ),
  );
  return { postgres, clickhouse, kafka, registry };
}
