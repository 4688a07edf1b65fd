#!/bin/sh
# `pnpm fuzz`: install what a fresh machine lacks (pnpm and dependencies, the store), then run the fuzz suite against
# the stack as it deploys (deploy/fuzz/run.ts; FUZZ_REQUESTS, FUZZ_SECONDS, FUZZ_SEED and the others in its header).
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-store.sh"
cd "$ROOT"
exec node --import tsx deploy/fuzz/run.ts "$@"
