import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { Config } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { mavenCopy } from './install.ts';
import { run, startDaemon, waitUntil } from './processes.ts';

export const kafkaVersion = '4.1.1';

/** Apache Kafka in KRaft mode (broker and controller in one JVM), from Maven Central's jars. */
export function kafkaComponent(config: Config): Component {
  const { home, daemon } = stackPaths(config, 'kafka');
  const libs = join(home, 'libs');
  const dataDir = join(home, 'data');
  const serverProperties = join(home, 'server.properties');
  const log4jProperties = join(home, 'log4j2.properties');
  const [host = '127.0.0.1', portText = '9092'] = (config.kafka.brokers[0] ?? '').split(':');
  const port = Number(portText);
  const controllerPort = config.kafka.controllerPort;
  const java = (args: string[]) => [
    '-cp',
    `${libs}/*`,
    `-Dlog4j2.configurationFile=${log4jProperties}`,
    ...args,
  ];

  return {
    name: 'kafka',
    port,
    daemon,
    install(log) {
      mavenCopy(
        [`org.apache.kafka:kafka_2.13:${kafkaVersion}`, 'org.apache.logging.log4j:log4j-slf4j-impl:2.24.3'],
        libs,
        log,
      );
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(serverProperties, brokerProperties(host, port, controllerPort, dataDir));
      writeFileSync(log4jProperties, log4jConfig(daemon.logFile));
      if (!existsSync(join(dataDir, 'meta.properties'))) {
        const clusterId = randomBytes(16).toString('base64url');
        run('java', java(['kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', serverProperties]));
      }
    },
    async healthy() {
      const admin = new Kafka({
        clientId: 'orrery-stack-health',
        brokers: config.kafka.brokers,
        logLevel: logLevel.NOTHING,
        connectionTimeout: 1000,
        retry: { retries: 0 },
      }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0;
      } finally {
        await admin.disconnect();
      }
    },
    async start() {
      startDaemon(daemon, {
        command: 'java',
        args: [
          '-Xms128m',
          '-Xmx512m',
          '-XX:+UseG1GC',
          '-XX:MaxGCPauseMillis=20',
          ...java(['kafka.Kafka', serverProperties]),
        ],
      });
      await waitUntil(daemon, port, this.healthy, 90_000);
    },
  };
}

function brokerProperties(host: string, port: number, controllerPort: number, dataDir: string): string {
  return `process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${host}:${controllerPort}
listeners=PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controllerPort}
advertised.listeners=PLAINTEXT://${host}:${port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${dataDir}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.check.interval.ms=300000
# Producers batch several requests' messages into one compressed record batch.
message.max.bytes=16777216
replica.fetch.max.bytes=16777216
`;
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
