#!/bin/sh
# The official postgres image's interface (docker-library/postgres, docker-entrypoint.sh) for
# Debian's Postgres: on a first start POSTGRES_USER (default postgres) with POSTGRES_PASSWORD
# (required) makes the cluster and POSTGRES_DB (default the user's name), then the *.sql, *.sql.gz
# and *.sh files in /docker-entrypoint-initdb.d run against it, on the socket only. The command
# is `postgres …` (or only its options); any other command runs as it is.
set -eu
case "${1:--}" in -*) set -- postgres "$@" ;; esac
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  database="${POSTGRES_DB:-$user}"
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified (POSTGRES_PASSWORD).' >&2
    exit 1
  fi
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/password
  initdb -D "$PGDATA" --username="$user" --pwfile=/tmp/password >/dev/null
  rm /tmp/password
  # As that image: passwords from any host (scram-sha-256, Postgres 14's default), trust on the socket.
  printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql="psql -v ON_ERROR_STOP=1 --username=$user --no-password --no-psqlrc"
  [ "$database" = postgres ] || $psql --dbname=postgres -qc "CREATE DATABASE \"$database\""
  for file in /docker-entrypoint-initdb.d/*; do
    case "$file" in
      *.sh) if [ -x "$file" ]; then "$file"; else . "$file"; fi ;;
      *.sql) $psql --dbname="$database" -qf "$file" ;;
      *.sql.gz) gunzip -c "$file" | $psql --dbname="$database" -q ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@"
