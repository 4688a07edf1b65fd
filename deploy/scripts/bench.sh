#!/bin/sh
# `pnpm bench`: start the stack on FerretDB over the local PostgreSQL and run the bounded autocannon scenarios.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-ferretdb.sh"
cd "$ROOT"
exec node --import tsx deploy/bench/run.ts "$@"
