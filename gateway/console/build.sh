#!/bin/sh
# Builds the operator console (gateway/console/dist, served by the gateway at /console) when dist is missing or older
# than its sources; `npm start` and `npm test` call it. FORCE=1 builds regardless.
set -eu
DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
ROOT=$(CDPATH= cd -- "$DIR/../.." && pwd)
STAMP="$DIR/dist/index.html"
if [ "${FORCE:-}" != "1" ] && [ -f "$STAMP" ]; then
  # Anything the build reads that is newer than the last build's index.html?
  newer=$(find "$DIR/src" "$DIR/index.html" "$DIR/vite.config.ts" "$DIR/package.json" "$ROOT/packages/quota-items/src" "$ROOT/packages/traits/src" \
    -newer "$STAMP" -print 2>/dev/null | head -n 1)
  [ -z "$newer" ] && exit 0
fi
cd "$ROOT"
pnpm --filter @stratum/console build >/dev/null
echo "console: built gateway/console/dist"
