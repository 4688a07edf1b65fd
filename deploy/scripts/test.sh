#!/bin/sh
# `npm test`: install what a fresh machine lacks, typecheck, lint, then run the unit and integration tests
# (integration tests start FerretDB on the local PostgreSQL, a fresh database per run).
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-ferretdb.sh"
cd "$ROOT"
pnpm exec tsc -p tsconfig.json --noEmit
pnpm exec biome check .
pnpm exec jest "$@"
