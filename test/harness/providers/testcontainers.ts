import { GenericContainer, Network, type StartedTestContainer, Wait } from 'testcontainers';
import { provision } from '../../../infra/provision.ts';
import { kafkaVersion } from '../../../infra/stack/kafka.ts';
import { registryVersion } from '../../../infra/stack/registry.ts';
import { parseConfig } from '../../../platform/config.ts';
import type { StackProvider } from './provider.ts';

/**
 * The same stack from the official images (STACK=testcontainers), for machines with Docker; the
 * images and versions match infra/compose.yaml. It cannot run on our Docker-less CI machines.
 */
export const testcontainersProvider: StackProvider = {
  name: 'testcontainers',
  async start(log) {
    const network = await new Network().start();
    const started: StartedTestContainer[] = [];
    const postgres = await new GenericContainer('postgres:15')
      .withNetwork(network)
      .withNetworkAliases('postgres')
      .withEnvironment({ POSTGRES_USER: 'orrery', POSTGRES_PASSWORD: 'orrery', POSTGRES_DB: 'orrery' })
      .withCopyContentToContainer([
        { content: 'CREATE DATABASE registry;', target: '/docker-entrypoint-initdb.d/registry.sql' },
      ])
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    started.push(postgres);
    const clickhouse = await new GenericContainer('clickhouse/clickhouse-server:24.8')
      .withExposedPorts(8123)
      .withWaitStrategy(Wait.forHttp('/ping', 8123))
      .start();
    started.push(clickhouse);
    const kafka = await new GenericContainer(`apache/kafka:${kafkaVersion}`)
      .withExposedPorts({ container: 9092, host: 19092 })
      .withEnvironment({
        KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://localhost:9093',
      })
      .withWaitStrategy(Wait.forListeningPorts())
      .start();
    started.push(kafka);
    const registry = await new GenericContainer(`apicurio/apicurio-registry:${registryVersion}`)
      .withNetwork(network)
      .withEnvironment({
        APICURIO_STORAGE_KIND: 'sql',
        APICURIO_STORAGE_SQL_KIND: 'postgresql',
        APICURIO_DATASOURCE_URL: 'jdbc:postgresql://postgres:5432/registry',
        APICURIO_DATASOURCE_USERNAME: 'orrery',
        APICURIO_DATASOURCE_PASSWORD: 'orrery',
      })
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
      .start();
    started.push(registry);

    const environment = {
      ORRERY_POSTGRES_URL: `postgres://orrery:orrery@${postgres.getHost()}:${postgres.getMappedPort(5432)}/orrery`,
      ORRERY_CLICKHOUSE_URL: `http://${clickhouse.getHost()}:${clickhouse.getMappedPort(8123)}`,
      ORRERY_KAFKA_BROKERS: '127.0.0.1:19092',
      ORRERY_REGISTRY_URL: `http://${registry.getHost()}:${registry.getMappedPort(8080)}`,
    };
    Object.assign(process.env, environment);
    await provision(parseConfig(), log);
    return {
      environment,
      stop: async () => {
        for (const container of started.reverse()) await container.stop();
        await network.stop();
      },
    };
  },
};
