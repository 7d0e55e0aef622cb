import { join, resolve } from 'node:path';
import type { Config } from '../../platform/config.ts';
import { fetchKafkaLibs, kafkaVersion } from '../stack/kafka.ts';
import { registryComponent, registryVersion } from '../stack/registry.ts';
import type { Engine } from './engine.ts';
import { buildImage } from './images.ts';

// The stack's parts as images, for machines where no registry serves the official ones (issue 17):
// built on the Debian base (images.ts) from Debian's packages (Postgres, ClickHouse, Java) and the
// Maven Central jars the local stack has fetched (Kafka, Apicurio). Each listens on every
// interface of its container, at its usual port, and finds the others by their network aliases;
// each is configured as the part's official image is (the entry scripts in parts/), so one
// configuration serves both (packages/testcontainers/src/configuration.ts).

export interface StackPart {
  name: 'postgres' | 'clickhouse' | 'kafka' | 'registry';
  image: string;
  /** The port it serves on inside its container. */
  port: number;
}

export const stackParts = {
  postgres: { name: 'postgres', image: 'localhost/orrery-postgres:15', port: 5432 },
  clickhouse: { name: 'clickhouse', image: 'localhost/orrery-clickhouse:18.16', port: 8123 },
  kafka: { name: 'kafka', image: `localhost/orrery-kafka:${kafkaVersion}`, port: 9092 },
  registry: { name: 'registry', image: `localhost/orrery-registry:${registryVersion}`, port: 8080 },
} as const satisfies Record<string, StackPart>;

const partsDir = resolve(import.meta.dirname, 'parts');

/** Builds the four part images (the engine caches their layers, so a rebuild takes seconds). */
export async function buildPartImages(
  engine: Engine,
  config: Config,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  const timed = async (name: string, build: () => Promise<void>) => {
    const started = Date.now();
    await build();
    timings[`${name} image`] = (Date.now() - started) / 1000;
  };
  await timed('postgres', () =>
    buildImage(engine, log, {
      file: join(partsDir, 'postgres.Containerfile'),
      image: stackParts.postgres.image,
      context: partsDir,
    }),
  );
  await timed('clickhouse', () =>
    buildImage(engine, log, {
      file: join(partsDir, 'clickhouse.Containerfile'),
      image: stackParts.clickhouse.image,
      context: partsDir,
    }),
  );
  await timed('kafka', () =>
    buildImage(engine, log, {
      file: join(partsDir, 'java.Containerfile'),
      image: stackParts.kafka.image,
      context: partsDir,
      contexts: { app: kafkaLibs(config, log) },
      args: { ENTRY: 'kafka-entry.sh' },
    }),
  );
  await timed('registry', () =>
    buildImage(engine, log, {
      file: join(partsDir, 'java.Containerfile'),
      image: stackParts.registry.image,
      context: partsDir,
      contexts: { app: registryApp(config, log) },
      args: { ENTRY: 'registry-entry.sh' },
    }),
  );
  return timings;
}

/** Kafka's jars where the local stack keeps them, fetched from Maven Central if not yet there. */
function kafkaLibs(config: Config, log: (line: string) => void): string {
  const dir = join(config.stackDir, 'kafka-libs');
  fetchKafkaLibs(dir, log);
  return dir;
}

/** Apicurio's application, as the local stack fetches and unpacks it (once), for the image. */
function registryApp(config: Config, log: (line: string) => void): string {
  registryComponent(config).install(log);
  return join(config.stackDir, 'registry', 'app');
}
