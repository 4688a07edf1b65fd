#!/bin/sh
# `npm test`: install what a fresh machine lacks (pnpm and dependencies, the store: FerretDB 2.5 + DocumentDB on
# PostgreSQL 15, the OpenStack clients), typecheck, lint, then run the unit and integration tests
# (integration tests start FerretDB 2.5 on the project's own test cluster, var/test-postgres; packages/store-runtime/src/store.ts).
# Ends with a plain "tests: N passed, N failed" line.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-store.sh"
# The official OpenStack clients (Debian packages) that the compatibility tests drive.
sh "$ROOT/deploy/scripts/install-openstack-clients.sh"
# Debian's Chromium, the browser the console's tests (gateway/console/test) drive with playwright-core.
sh "$ROOT/deploy/scripts/install-chromium.sh"
cd "$ROOT"
# The operator console, built: the browser tests load it from the gateway.
sh gateway/console/build.sh
# The workspace, then the console (its pages; its unit tests, the only code typed with jest's globals).
pnpm typecheck
pnpm exec biome check .
mkdir -p var
rc=0
pnpm exec jest --json --outputFile=var/jest-results.json "$@" || rc=$?
node -e '
  const r = require(process.argv[1]);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
  if (r.numTotalTests === 0) process.exitCode = 1;
' "$ROOT/var/jest-results.json" || rc=1
exit "$rc"
