#!/bin/sh
# Builds FerretDB v1.24.2, the store of earlier versions (SQLite under ./var/ferretdb), into the cache and prints
# the binary's path. Only deploy/src/migrate.ts uses it: to read such data once and copy it into FerretDB 2.5.
# Does nothing but print the path when that version is already built.
#
# Why not `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`: on these machines the proxy refuses the
# module's version list (which `go install` reads for its deprecation check: "403 Forbidden ... This module version
# is not available"), and a binary built from the module zip panics at start because the zip ships no
# build/version/version.txt. So we download the same module version with `go mod download`, add version.txt (as
# FerretDB's own panic message asks) and build it. Same source, same version.
set -eu
VERSION=v1.24.2
CACHE=${STRATUM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stratum}
BIN=$CACHE/ferretdb-$VERSION/ferretdb
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "version: $VERSION"; then
  echo "$BIN"
  exit 0
fi
command -v go >/dev/null 2>&1 || PATH=$PATH:/usr/local/go/bin
command -v go >/dev/null 2>&1 || { echo "install-ferretdb-1.24: Go is needed to build FerretDB $VERSION (go not found on PATH nor in /usr/local/go/bin)" >&2; exit 1; }
echo "install-ferretdb-1.24: building FerretDB $VERSION into $CACHE (about half a minute, once)..." >&2
DIR=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$DIR" ] && [ -d "$DIR" ] || { echo "install-ferretdb-1.24: go mod download did not give a module directory" >&2; exit 1; }
SRC=$CACHE/build/ferretdb-$VERSION
rm -rf "$SRC"
mkdir -p "$CACHE/build" "$(dirname "$BIN")"
cp -R "$DIR" "$SRC"
chmod -R u+w "$SRC"
printf '%s\n' "$VERSION" > "$SRC/build/version/version.txt"
(cd "$SRC" && GOFLAGS=-buildvcs=false go build -trimpath -o "$BIN.tmp" ./cmd/ferretdb) >&2
mv "$BIN.tmp" "$BIN"
echo "$BIN"
