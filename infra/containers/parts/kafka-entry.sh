#!/bin/sh
# Apache Kafka configured as the apache/kafka image configures it (its docker/resources scripts):
# that image's defaults for what is unset (configureDefaults), then every KAFKA_* variable but the
# JVM's is a line of server.properties, named as its utility.go names it: KAFKA_ dropped, `_` between
# letters → `.`, `___` → `-`, `__` → `_`, lower case (KAFKA_LOG_DIRS → log.dirs). Storage is
# formatted with CLUSTER_ID on first start. `kafka-entry.sh properties` prints the file instead
# (test/unit/infra/part-images.unit.test.ts).
set -euf
: "${CLUSTER_ID:=5L6g3nShT-eMCtK--X86sw}"
export KAFKA_NODE_ID="${KAFKA_NODE_ID:-1}" \
  KAFKA_LISTENER_SECURITY_PROTOCOL_MAP="${KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:-CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT}" \
  KAFKA_LISTENERS="${KAFKA_LISTENERS:-PLAINTEXT://localhost:29092,CONTROLLER://localhost:29093,PLAINTEXT_HOST://0.0.0.0:9092}" \
  KAFKA_ADVERTISED_LISTENERS="${KAFKA_ADVERTISED_LISTENERS:-PLAINTEXT://localhost:29092,PLAINTEXT_HOST://localhost:9092}" \
  KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR="${KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR:-1}" \
  KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS="${KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS:-0}" \
  KAFKA_TRANSACTION_STATE_LOG_MIN_ISR="${KAFKA_TRANSACTION_STATE_LOG_MIN_ISR:-1}" \
  KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR="${KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR:-1}" \
  KAFKA_PROCESS_ROLES="${KAFKA_PROCESS_ROLES:-broker,controller}" \
  KAFKA_CONTROLLER_QUORUM_VOTERS="${KAFKA_CONTROLLER_QUORUM_VOTERS:-1@localhost:29093}" \
  KAFKA_INTER_BROKER_LISTENER_NAME="${KAFKA_INTER_BROKER_LISTENER_NAME:-PLAINTEXT}" \
  KAFKA_CONTROLLER_LISTENER_NAMES="${KAFKA_CONTROLLER_LISTENER_NAMES:-CONTROLLER}" \
  KAFKA_LOG_DIRS="${KAFKA_LOG_DIRS:-/tmp/kraft-combined-logs}"

properties() {
  env | grep '^KAFKA_[A-Z0-9_]*=' | while IFS='=' read -r name value; do
    # That image's list of variables that are not properties (kafka-propertiesSpec.json), as it is:
    # KAFKA_HEAP_OPT, not KAFKA_HEAP_OPTS, which so becomes a `heap.opts` line Kafka ignores.
    case "$name" in
      KAFKA_VERSION | KAFKA_HEAP_OPT | KAFKA_LOG4J_OPTS | KAFKA_OPTS | KAFKA_JMX_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | \
        KAFKA_GC_LOG_OPTS | KAFKA_LOG4J_ROOT_LOGLEVEL | KAFKA_LOG4J_LOGGERS | KAFKA_TOOLS_LOG4J_LOGLEVEL) continue ;;
    esac
    key=$(printf '%s' "${name#KAFKA_}" | sed -E 's/([^_])_([^_])/\1.\2/g; s/___/-/g; s/__/_/g' | tr 'A-Z' 'a-z')
    printf '%s=%s\n' "$key" "$value"
  done | sort
}

if [ "${1:-}" = properties ]; then
  properties
  exit 0
fi
properties >/data/server.properties
# Warnings to the container's log, and the line that says the node serves (testcontainers waits
# for "Kafka Server started").
cat >/data/log4j2.properties <<LOG4J
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
java="java -Dlog4j2.configurationFile=/data/log4j2.properties ${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} -cp /app/*"
if [ ! -f "$KAFKA_LOG_DIRS/meta.properties" ]; then
  $java kafka.tools.StorageTool format --cluster-id "$CLUSTER_ID" -c /data/server.properties >/dev/null
fi
exec $java -XX:+UseG1GC kafka.Kafka /data/server.properties
