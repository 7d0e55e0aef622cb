#!/bin/sh
# First start: a cluster with the stack's user and databases; then Postgres in the foreground.
set -eu
bin=/usr/lib/postgresql/15/bin
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  printf '%s\n' "${POSTGRES_PASSWORD:-orrery}" > /tmp/password
  "$bin/initdb" -D "$PGDATA" -U "${POSTGRES_USER:-orrery}" --pwfile=/tmp/password --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm /tmp/password
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses='' -k /tmp" -w start >/dev/null
  for database in orrery registry; do
    "$bin/psql" -h /tmp -U "${POSTGRES_USER:-orrery}" -d postgres -qc "CREATE DATABASE $database"
  done
  "$bin/pg_ctl" -D "$PGDATA" -w stop >/dev/null
fi
exec "$bin/postgres" -D "$PGDATA" -k /tmp -c listen_addresses='*' -c max_connections=200 "$@"
