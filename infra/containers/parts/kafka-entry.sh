#!/bin/sh
# Apache Kafka, one node in KRaft mode (broker and controller), plaintext: clients on the
# container network reach it as ${KAFKA_ADVERTISED_HOST:-kafka}:9092. With KAFKA_HOST_ADDRESS
# (host:port, where port 9094 of the container is published on the host), clients on the host
# reach it there too: a broker hands out the address of the listener a client came in on.
# Storage formatted on first start.
set -euf
host="${KAFKA_ADVERTISED_HOST:-kafka}"
listeners="PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9093"
advertised="PLAINTEXT://${host}:9092"
protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
if [ -n "${KAFKA_HOST_ADDRESS:-}" ]; then
  listeners="${listeners},HOST://0.0.0.0:9094"
  advertised="${advertised},HOST://${KAFKA_HOST_ADDRESS}"
  protocols="${protocols},HOST:PLAINTEXT"
fi
cat > /data/server.properties <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=${listeners}
advertised.listeners=${advertised}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=${protocols}
log.dirs=/data/log
num.partitions=1
auto.create.topics.enable=false
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
message.max.bytes=16777216
replica.fetch.max.bytes=16777216
PROPERTIES
# Warnings to the container's log, and the line that says the node serves (testcontainers waits
# for "Kafka Server started").
cat > /data/log4j2.properties <<LOG4J
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
LOG4J
java="java -Dlog4j2.configurationFile=/data/log4j2.properties -Xms128m -Xmx${KAFKA_HEAP_MB:-512}m -cp /app/*"
if [ ! -f /data/log/meta.properties ]; then
  $java kafka.tools.StorageTool format -t "$($java kafka.tools.StorageTool random-uuid)" -c /data/server.properties >/dev/null
fi
exec $java -XX:+UseG1GC kafka.Kafka /data/server.properties
