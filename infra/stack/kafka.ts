import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, kafkaNodePortStep } from '../../platform/config.ts';
import { withAdmin } from '../../platform/kafka.ts';
import type { KafkaSettings } from '../../platform/kafka-settings.ts';
import type { Component } from './component.ts';
import { mavenCopy } from './install.ts';
import { type Daemon, isAlive, readPid, run, startDaemon, stopDaemon, waitUntil } from './processes.ts';
import type { TlsMaterial } from './tls.ts';

export const kafkaVersion = '4.1.1';

/**
 * A local Apache Kafka cluster in KRaft mode, from Maven Central's jars: one node, or three
 * (each broker and controller, a quorum of three voters; topics with three copies of which two
 * must acknowledge). Its client listener is plaintext, or SASL_SSL with SCRAM-SHA-256/512 and
 * PLAIN beside a TLS listener that asks for a client certificate, as managed clusters do.
 */
export interface KafkaClusterSpec {
  /** Names the folder under the stack's root and the daemons: `kafka`, or `kafka-1`… */
  name: string;
  root: string;
  nodes: 1 | 3;
  host: string;
  /** Node i (from 0) listens for clients and as a controller kafkaNodePortStep i ports above node 0. */
  clientPort: number;
  controllerPort: number;
  heapMb: number;
  security?: { tls: TlsMaterial; username: string; password: string };
}

export interface KafkaNode {
  id: number;
  /** SASL_SSL when the cluster is secured, else plaintext. */
  clientPort: number;
  /** Secured clusters only: TLS with a client certificate. */
  mutualTlsPort: number;
  daemon: Daemon;
  properties: string;
  log4j: string;
  dataDir: string;
}

export class KafkaCluster {
  readonly nodes: KafkaNode[];
  private readonly libs: string;

  constructor(readonly spec: KafkaClusterSpec) {
    const home = join(spec.root, spec.name);
    this.libs = join(spec.root, 'kafka-libs');
    this.nodes = Array.from({ length: spec.nodes }, (_, index) => {
      const name = spec.nodes === 1 ? spec.name : `${spec.name}-${index + 1}`;
      const nodeHome = spec.nodes === 1 ? home : join(home, `node-${index + 1}`);
      return {
        id: index + 1,
        clientPort: spec.clientPort + kafkaNodePortStep * index,
        mutualTlsPort: spec.clientPort + kafkaNodePortStep * index + 3,
        daemon: {
          name,
          pidFile: join(spec.root, 'run', `${name}.pid`),
          logFile: join(spec.root, 'logs', `${name}.log`),
        },
        properties: join(nodeHome, 'server.properties'),
        log4j: join(nodeHome, 'log4j2.properties'),
        dataDir: join(nodeHome, 'data'),
      };
    });
  }

  /** What a client needs to reach this cluster: its brokers and, when secured, TLS and SCRAM. */
  clientSettings(
    base: KafkaSettings,
    mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'PLAIN' = 'SCRAM-SHA-512',
  ): KafkaSettings {
    const { security, host } = this.spec;
    return {
      ...base,
      brokers: this.nodes.map((node) => `${host}:${node.clientPort}`),
      tls: security ? { ca: readFileSync(security.tls.ca, 'utf8') } : undefined,
      sasl: security ? { mechanism, username: security.username, password: security.password } : undefined,
    };
  }

  install(log: (line: string) => void): void {
    fetchKafkaLibs(this.libs, log);
    const clusterIdFile = join(this.spec.root, this.spec.name, 'cluster-id');
    mkdirSync(join(this.spec.root, this.spec.name), { recursive: true });
    if (!existsSync(clusterIdFile)) writeFileSync(clusterIdFile, newClusterId());
    const clusterId = readFileSync(clusterIdFile, 'utf8').trim();
    for (const node of this.nodes) {
      mkdirSync(node.dataDir, { recursive: true });
      writeFileSync(node.properties, this.nodeProperties(node));
      writeFileSync(node.log4j, log4jConfig(node.daemon.logFile));
      if (existsSync(join(node.dataDir, 'meta.properties'))) continue;
      const scram = this.spec.security
        ? ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((mechanism) => [
            '--add-scram',
            `${mechanism}=[name=${this.spec.security!.username},password=${this.spec.security!.password}]`,
          ])
        : [];
      run(
        'java',
        this.java(node, [
          'kafka.tools.StorageTool',
          'format',
          '-t',
          clusterId,
          '-c',
          node.properties,
          ...scram,
        ]),
      );
    }
  }

  /** Starts every node that is not running, then waits until each answers a client. */
  async start(timeoutMs = 120_000): Promise<void> {
    for (const node of this.nodes) if (readPid(node.daemon) === undefined) this.startNode(node);
    // A node of three cannot be ready alone (the quorum needs two), so all start before any wait.
    for (const node of this.nodes)
      await waitUntil(node.daemon, node.clientPort, () => this.nodeHealthy(node), timeoutMs);
  }

  startNode(node: KafkaNode): void {
    startDaemon(node.daemon, {
      command: 'java',
      args: [
        // ZGC rather than G1: every produce request in flight waits out a collection's pause, and
        // the title service answers only once its usage event is acknowledged. On two shared
        // cores G1's young pauses took 10-36 ms every 2.7 s and 84-121 ms about every 20 s, and
        // the slowest title requests fell on them (bench/inference: 629 over 10 ms in 60 s, run
        // p99s 10-22 ms); with ZGC's sub-millisecond pauses, 260 and 8-12 ms. The heap is whole
        // from the start, since ZGC collects ahead of a heap's limit rather than growing it.
        `-Xms${this.spec.heapMb}m`,
        `-Xmx${this.spec.heapMb}m`,
        '-XX:+UseZGC',
        ...this.java(node, ['kafka.Kafka', node.properties]),
      ],
    });
  }

  /** Kills a node the way a crash does (SIGKILL, no shutdown), for failure tests. */
  kill(node: KafkaNode): void {
    const pid = readPid(node.daemon);
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  }

  isRunning(node: KafkaNode): boolean {
    const pid = readPid(node.daemon);
    return pid !== undefined && isAlive(pid);
  }

  async healthy(): Promise<boolean> {
    for (const node of this.nodes) if (!(await this.nodeHealthy(node).catch(() => false))) return false;
    return true;
  }

  /** The node answers a client on its own listener (it has joined the cluster and is unfenced). */
  async nodeHealthy(node: KafkaNode): Promise<boolean> {
    const base = this.clientSettings({
      brokers: [],
      timeouts: { requestMs: 2000, deliveryMs: 2000, callerMs: 2000 },
    });
    const settings = { ...base, brokers: [`${this.spec.host}:${node.clientPort}`] };
    await withAdmin('orrery-stack-health', (admin) => admin.listTopics({ timeout: 2000 }), settings, true);
    return true;
  }

  async stop(): Promise<boolean> {
    let stopped = false;
    for (const node of this.nodes) if (await stopDaemon(node.daemon)) stopped = true;
    return stopped;
  }

  private java(node: KafkaNode, args: string[]): string[] {
    return ['-cp', `${this.libs}/*`, `-Dlog4j2.configurationFile=${node.log4j}`, ...args];
  }

  private nodeProperties(node: KafkaNode): string {
    const { host, nodes, security } = this.spec;
    const voters = this.nodes
      .map((other) => `${other.id}@${host}:${this.spec.controllerPort + kafkaNodePortStep * (other.id - 1)}`)
      .join(',');
    const controllerPort = this.spec.controllerPort + kafkaNodePortStep * (node.id - 1);
    const internalPort = node.clientPort + 2;
    const replicas = nodes === 3 ? 3 : 1;
    const minInsync = nodes === 3 ? 2 : 1;
    const listeners = security
      ? {
          listeners: `SASL_SSL://${host}:${node.clientPort},SSL://${host}:${node.mutualTlsPort},INTERNAL://${host}:${internalPort},CONTROLLER://${host}:${controllerPort}`,
          advertised: `SASL_SSL://${host}:${node.clientPort},SSL://${host}:${node.mutualTlsPort},INTERNAL://${host}:${internalPort}`,
          map: 'CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL',
          interBroker: 'INTERNAL',
        }
      : {
          listeners: `PLAINTEXT://${host}:${node.clientPort},CONTROLLER://${host}:${controllerPort}`,
          advertised: `PLAINTEXT://${host}:${node.clientPort}`,
          map: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
          interBroker: 'PLAINTEXT',
        };
    const securityProperties = security
      ? `
ssl.keystore.type=PEM
ssl.keystore.location=${security.tls.brokerKeyStore}
ssl.truststore.type=PEM
ssl.truststore.location=${security.tls.ca}
listener.name.ssl.ssl.client.auth=required
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${security.username}="${security.password}";
`
      : '';
    return `process.roles=broker,controller
node.id=${node.id}
controller.quorum.voters=${voters}
listeners=${listeners.listeners}
advertised.listeners=${listeners.advertised}
controller.listener.names=CONTROLLER
inter.broker.listener.name=${listeners.interBroker}
listener.security.protocol.map=${listeners.map}
log.dirs=${node.dataDir}
num.partitions=1
auto.create.topics.enable=false
default.replication.factor=${replicas}
min.insync.replicas=${minInsync}
offsets.topic.replication.factor=${replicas}
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=${replicas}
transaction.state.log.min.isr=${minInsync}
share.coordinator.state.topic.replication.factor=${replicas}
share.coordinator.state.topic.min.isr=${minInsync}
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.check.interval.ms=300000
# Only __consumer_offsets is compacted here: a 32 MiB key map (some 1.4 million keys a pass)
# instead of 128 leaves that much more of the heap to the collector.
log.cleaner.dedupe.buffer.size=33554432
# A node that stops heartbeating is fenced, and its partitions led elsewhere, within seconds.
broker.session.timeout.ms=6000
broker.heartbeat.interval.ms=1000
# Producers batch several requests' messages into one compressed record batch.
message.max.bytes=16777216
replica.fetch.max.bytes=16777216
${securityProperties}`;
  }
}

/** Kafka's jars and their dependencies from Maven Central (cached in ~/.m2), into `libs`. */
export function fetchKafkaLibs(libs: string, log: (line: string) => void): void {
  mavenCopy(
    [`org.apache.kafka:kafka_2.13:${kafkaVersion}`, 'org.apache.logging.log4j:log4j-slf4j-impl:2.24.3'],
    libs,
    log,
  );
}

/** The local stack's cluster (ORRERY_STACK_KAFKA_NODES nodes, plaintext, on ORRERY_KAFKA_BROKERS' port). */
export function localKafkaCluster(config: Config): KafkaCluster {
  const [host = '127.0.0.1', port = '9092'] = (config.kafka.brokers[0] ?? '').split(':');
  return new KafkaCluster({
    name: 'kafka',
    root: config.stackDir,
    nodes: config.kafka.stackNodes,
    host,
    clientPort: Number(port),
    controllerPort: config.kafka.controllerPort,
    heapMb: config.kafka.stackNodes === 1 ? 512 : 384,
  });
}

export function kafkaComponent(config: Config): Component {
  const cluster = localKafkaCluster(config);
  return {
    name: 'kafka',
    port: cluster.nodes[0]!.clientPort,
    daemons: cluster.nodes.map((node) => node.daemon),
    install(log) {
      refuseOtherTopology(cluster);
      cluster.install(log);
    },
    healthy: () => cluster.healthy(),
    start: () => cluster.start(90_000),
  };
}

/**
 * One node and three are different clusters: the read models (Postgres projections' offsets
 * above all) follow the one they were built from, so the stack does not switch silently.
 */
function refuseOtherTopology(cluster: KafkaCluster): void {
  const { root, name, nodes } = cluster.spec;
  const single = join(root, name, 'data', 'meta.properties');
  const three = join(root, name, 'node-1', 'data', 'meta.properties');
  const other = nodes === 1 ? three : single;
  if (existsSync(other))
    throw new Error(
      `kafka: this stack's Kafka ran with ${nodes === 1 ? 3 : 1} node(s), and its read models follow that cluster; ` +
        `set ORRERY_STACK_KAFKA_NODES=${nodes === 1 ? 3 : 1}, or start a fresh stack (npm run stack -- stop, then remove ${root})`,
    );
}

function log4jConfig(logFile: string): string {
  return `status = warn
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = ${logFile}
appender.file.filePattern = ${logFile}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 50MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
logger.controller.name = org.apache.kafka.controller
logger.controller.level = WARN
`;
}

/**
 * A random cluster id as Kafka's own `Uuid.randomUuid()` makes one: 16 bytes in base64url, drawn
 * again while it starts with '-', which the storage tool's argument parser would read as an option.
 */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
