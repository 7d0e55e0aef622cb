#!/bin/sh
# Apicurio Registry (the Confluent-compatible API at /apis/ccompat/v7), its storage the stack's
# Postgres (database `registry`), as infra/stack/registry.ts runs it on the host.
set -eu
export QUARKUS_HTTP_HOST=0.0.0.0 QUARKUS_HTTP_PORT=8080 QUARKUS_PROFILE=prod \
  APICURIO_STORAGE_KIND=sql APICURIO_STORAGE_SQL_KIND=postgresql \
  APICURIO_DATASOURCE_URL="${APICURIO_DATASOURCE_URL:-jdbc:postgresql://postgres:5432/registry}" \
  APICURIO_DATASOURCE_USERNAME="${APICURIO_DATASOURCE_USERNAME:-orrery}" \
  APICURIO_DATASOURCE_PASSWORD="${APICURIO_DATASOURCE_PASSWORD:-orrery}" \
  APICURIO_REST_DELETION_ARTIFACT_ENABLED=true APICURIO_REST_DELETION_ARTIFACT_VERSION_ENABLED=true \
  APICURIO_CCOMPAT_LEGACY_ID_MODE_ENABLED=true
exec java -Xms64m -Xmx384m -XX:+UseSerialGC -jar /app/apicurio-registry-app-*-runner.jar
