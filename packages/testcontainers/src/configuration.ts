// Each part of the stack configured through the interface its official image reads (issue 17),
// which the images built here from Debian's packages and Maven Central read the same way: so one
// configuration serves either image set, here and in infra/compose.yaml (a test holds the two
// together).

export interface PartConfiguration {
  environment: Record<string, string>;
  /** Arguments after the image's entry point. */
  command?: string[];
  /** Files put into the container before it starts. */
  files?: { target: string; content: string }[];
}

/** The official postgres image's variables and init folder: the platform's database and Apicurio's. */
export const postgresConfiguration: PartConfiguration = {
  environment: { POSTGRES_USER: 'orrery', POSTGRES_PASSWORD: 'orrery', POSTGRES_DB: 'orrery' },
  // The API, the consumers, the jobs and Apicurio each keep a pool.
  command: ['postgres', '-c', 'max_connections=200'],
  files: [{ target: '/docker-entrypoint-initdb.d/registry.sql', content: 'CREATE DATABASE registry;\n' }],
};

// `<yandex>` is the root ClickHouse 18.16 knows; current releases take it as `<clickhouse>`.
// Small caches and a per-query memory cap keep the server within a few hundred MB beside the JVMs
// (the local stack's infra/stack/clickhouse.ts has the same figures).
const clickhouseServer = `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level></logger>
  <timezone>UTC</timezone>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
</yandex>
`;

// The platform connects as `default` without password from the container network.
const clickhouseUsers = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>2000000000</max_memory_usage>
      <use_uncompressed_cache>0</use_uncompressed_cache>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks replace="replace"><ip>::/0</ip></networks>
    </default>
  </users>
</yandex>
`;

/** Settings files where both images' servers read them (the official one's config.d and users.d). */
export const clickhouseConfiguration: PartConfiguration = {
  // The official image otherwise limits `default` to loopback when it has no password.
  environment: { CLICKHOUSE_SKIP_USER_SETUP: '1' },
  files: [
    { target: '/etc/clickhouse-server/config.d/orrery.xml', content: clickhouseServer },
    { target: '/etc/clickhouse-server/users.d/orrery.xml', content: clickhouseUsers },
  ],
};

/**
 * One KRaft node in apache/kafka's variables (KAFKA_FOO_BAR is `foo.bar` in server.properties).
 * Clients on the network reach it as kafka:9092; with `hostAddress` (host:port, where the
 * container's port 9094 is published), clients on the host reach it there too: a broker hands a
 * client the address of the listener it came in on, so that address is known before it starts.
 */
export function kafkaConfiguration(hostAddress?: string): PartConfiguration {
  const listeners = ['PLAINTEXT://:9092', 'CONTROLLER://:9093'];
  const advertised = ['PLAINTEXT://kafka:9092'];
  const protocols = ['CONTROLLER:PLAINTEXT', 'PLAINTEXT:PLAINTEXT'];
  if (hostAddress !== undefined) {
    listeners.push('HOST://:9094');
    advertised.push(`HOST://${hostAddress}`);
    protocols.push('HOST:PLAINTEXT');
  }
  return {
    environment: {
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_LISTENERS: listeners.join(','),
      KAFKA_ADVERTISED_LISTENERS: advertised.join(','),
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: protocols.join(','),
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      // The platform creates its topics, with their partitions (provision).
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
      KAFKA_NUM_PARTITIONS: '1',
      KAFKA_DEFAULT_REPLICATION_FACTOR: '1',
      KAFKA_MIN_INSYNC_REPLICAS: '1',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '4',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      // A batch of spans may be up to 16 MiB.
      KAFKA_MESSAGE_MAX_BYTES: '16777216',
      KAFKA_REPLICA_FETCH_MAX_BYTES: '16777216',
      KAFKA_HEAP_OPTS: '-Xms128m -Xmx512m',
    },
  };
}

/** Apicurio Registry 3's variables: stored in the stack's Postgres, as the local stack runs it. */
export const registryConfiguration: PartConfiguration = {
  environment: {
    APICURIO_STORAGE_KIND: 'sql',
    APICURIO_STORAGE_SQL_KIND: 'postgresql',
    APICURIO_DATASOURCE_URL: 'jdbc:postgresql://postgres:5432/registry',
    APICURIO_DATASOURCE_USERNAME: 'orrery',
    APICURIO_DATASOURCE_PASSWORD: 'orrery',
    // As the local stack runs it (infra/stack/registry.ts).
    APICURIO_REST_DELETION_ARTIFACT_ENABLED: 'true',
    APICURIO_REST_DELETION_ARTIFACT_VERSION_ENABLED: 'true',
    APICURIO_CCOMPAT_LEGACY_ID_MODE_ENABLED: 'true',
    JAVA_OPTS_APPEND: '-Xms64m -Xmx384m -XX:+UseSerialGC',
  },
};
