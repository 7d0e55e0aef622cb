import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kafkaConfiguration } from '../../../packages/testcontainers/src/configuration.ts';

// The Kafka part image reads apache/kafka's variables: its entry prints the server.properties it
// would start with, from an environment, as that image's utility.go renders them.
const entry = resolve(import.meta.dirname, '../../../infra/containers/parts/kafka-entry.sh');
const properties = (environment: Record<string, string>) => {
  const printed = spawnSync('sh', [entry, 'properties'], {
    env: { PATH: process.env.PATH, ...environment },
    encoding: 'utf8',
  });
  expect(printed.stderr).toBe('');
  return Object.fromEntries(
    printed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
};

describe('the Kafka part image', () => {
  it('names each KAFKA_* variable as apache/kafka does: `_` → `.`, `__` → `_`, `___` → `-`', () => {
    const read = properties({
      KAFKA_LOG_RETENTION_MS: '-1',
      KAFKA_LISTENER_NAME_HOST_SSL_CLIENT__AUTH: 'none',
      KAFKA_CONFLUENT___SUPPORT_CUSTOMER_ID: 'x',
    });
    expect(read['log.retention.ms']).toBe('-1');
    expect(read['listener.name.host.ssl.client_auth']).toBe('none');
    expect(read['confluent-support.customer.id']).toBe('x');
  });

  it("leaves the JVM's variables out, and takes that image's defaults for what is unset", () => {
    const read = properties({ KAFKA_OPTS: '-Dx=1', KAFKA_JMX_OPTS: '-Dy=1' });
    expect(read.opts).toBeUndefined();
    expect(read['jmx.opts']).toBeUndefined();
    expect(read).toMatchObject({
      'node.id': '1',
      'process.roles': 'broker,controller',
      'controller.quorum.voters': '1@localhost:29093',
      'log.dirs': '/tmp/kraft-combined-logs',
    });
  });

  it("starts from the stack's configuration with the listeners it names", () => {
    const read = properties(kafkaConfiguration('127.0.0.1:40123').environment);
    expect(read).toMatchObject({
      listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093,HOST://:9094',
      'advertised.listeners': 'PLAINTEXT://kafka:9092,HOST://127.0.0.1:40123',
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,HOST:PLAINTEXT',
      'controller.quorum.voters': '1@localhost:9093',
      'auto.create.topics.enable': 'false',
      'offsets.topic.num.partitions': '4',
      'message.max.bytes': '16777216',
    });
  });
});
