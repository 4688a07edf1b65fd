#!/bin/sh
# `npm start`: install what a fresh machine lacks, then run the embedded stack.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
cd "$ROOT"
# The operator console's static files (served by the gateway at /console/), when missing or older than their sources.
sh gateway/console/build.sh
exec node --import tsx deploy/src/start.ts
