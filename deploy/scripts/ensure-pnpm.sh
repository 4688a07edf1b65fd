#!/bin/sh
# Makes pnpm (the version in package.json's packageManager) available and installs the workspace's dependencies.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
WANT=$(sed -n 's/.*"packageManager": "pnpm@\([^"]*\)".*/\1/p' "$ROOT/package.json")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$WANT" ]; then
  echo "ensure-pnpm: installing pnpm $WANT from the npm registry" >&2
  npm install -g "pnpm@$WANT" >/dev/null
fi
cd "$ROOT"
pnpm install --frozen-lockfile --reporter=silent
