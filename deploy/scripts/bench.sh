#!/bin/sh
# `pnpm bench`: start the stack on FerretDB 2.5 + DocumentDB (the project's bench cluster, var/bench-postgres) and run
# the bounded autocannon scenarios.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-store.sh"
cd "$ROOT"
exec node --import tsx deploy/bench/run.ts "$@"
