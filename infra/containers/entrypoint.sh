#!/bin/sh
# The Orrery image's entry (Containerfile): its command names the process, as infra/platform.ts
# names them, and it runs as `npm start` runs it: with infra/node-options.ts's options
# (test/unit/infra/containers.unit.test.ts holds the two together) and TypeScript through tsx.
set -eu
case "${1:-api}" in
  api) entry=api/main.ts ;;
  consumers) entry=consumers/main.ts ;;
  jobs) entry=jobs/main.ts ;;
  *)
    echo "unknown process '$1': the Orrery image runs api, consumers or jobs" >&2
    exit 2
    ;;
esac
export ORRERY_SERVICE="${ORRERY_SERVICE:-${1:-api}}"
exec node --max-semi-space-size=64 --import tsx "$entry"
