#!/bin/sh
# Builds FerretDB into .tools/bin/ferretdb from the Go module proxy; does nothing when that version is already there.
#
# Why not `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`: on these machines the proxy refuses the
# module's version list (which `go install` reads for its deprecation check: "403 Forbidden ... This module version
# is not available"), and a binary built from the module zip panics at start because the zip ships no
# build/version/version.txt. So we download the same module version with `go mod download`, add version.txt (as
# FerretDB's own panic message asks) and build it. Same source, same version.
set -eu
VERSION=v1.24.2
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
BIN="$ROOT/.tools/bin/ferretdb"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "version: $VERSION"; then
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "install-ferretdb: Go is needed to build FerretDB (go not found on PATH)" >&2; exit 1; }
echo "install-ferretdb: building FerretDB $VERSION into .tools/bin (first run only)..." >&2
DIR=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$DIR" ] && [ -d "$DIR" ] || { echo "install-ferretdb: go mod download did not give a module directory" >&2; exit 1; }
SRC="$ROOT/.tools/src/ferretdb-$VERSION"
rm -rf "$SRC"
mkdir -p "$ROOT/.tools/src" "$ROOT/.tools/bin"
cp -R "$DIR" "$SRC"
chmod -R u+w "$SRC"
printf '%s\n' "$VERSION" > "$SRC/build/version/version.txt"
(cd "$SRC" && GOFLAGS=-buildvcs=false go build -trimpath -o "$BIN.tmp" ./cmd/ferretdb)
mv "$BIN.tmp" "$BIN"
"$BIN" --version | head -1 >&2
