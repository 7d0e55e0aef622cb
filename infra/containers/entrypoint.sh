#!/bin/sh
# The Orrery image's entry (Containerfile): its command names the process, as infra/platform.ts
# names them, and it runs as `npm start` runs it: with infra/node-options.ts's options
# (test/unit/infra/containers.unit.test.ts holds the two together) and TypeScript through tsx.
set -eu
case "${1:-api}" in
  api) entry=api/main.ts ;;
  consumers) entry=consumers/main.ts ;;
  jobs) entry=jobs/main.ts ;;
  # One per machine, as root with the privileges namespaces and cgroups need (issue 47).
  sandbox-host) entry=sandbox-host/main.ts ;;
  # Once, before the others: migrations, topics, schemas (infra/containers/provision.ts).
  provision) entry=infra/containers/provision.ts ;;
  # An operator's commands (README, "Administration"): `admin org create --name … --json`.
  admin)
    shift
    export ORRERY_SERVICE=admin ORRERY_LOG_DESTINATION=stderr ORRERY_LOG_LEVEL="${ORRERY_LOG_LEVEL:-error}"
    exec node --import tsx api/admin/cli.ts "$@"
    ;;
  *)
    echo "unknown process '$1': the Orrery image runs api, consumers, jobs, sandbox-host, provision or admin" >&2
    exit 2
    ;;
esac
export ORRERY_SERVICE="${ORRERY_SERVICE:-${1:-api}}"
exec node --max-semi-space-size=64 --initial-old-space-size=256 --import tsx "$entry"
