#!/bin/sh
# Installs what the store needs: FerretDB 2.5.0 on PostgreSQL 15 with the DocumentDB extension (docs/stores.md,
# "Building and running FerretDB 2.5 + DocumentDB"). Idempotent: a second run checks and returns in about a second.
#
#   sh deploy/scripts/install-store.sh            everything (root for the first two steps when something is missing)
#   sudo sh deploy/scripts/install-store.sh --system   only the steps that need root (packages, extensions)
#
# 1. Debian packages that are missing (the build ones only when an extension must be built).
# 2. pgvector 0.8.0 and DocumentDB v0.106.0-ferretdb-2.5.0, built and installed into PostgreSQL 15 unless installed
#    at those versions. Sources: $PGVECTOR_SRC / $DOCUMENTDB_SRC (a tarball, a directory or a git repository with the
#    tag), else deploy/vendor/*.tar.gz.
# 3. FerretDB v2.5.0 built from the Go module proxy into the cache, copied to .tools/bin/ferretdb.
#
# Build trees and the FerretDB binary are cached outside the work tree, in $STRATUM_CACHE_DIR
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/stratum; /var/cache/stratum with --system). Progress goes to stderr.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_LIB=/usr/lib/postgresql/$PG_MAJOR/lib
PG_EXT=/usr/share/postgresql/$PG_MAJOR/extension
DOCUMENTDB_TAG=v0.106.0-ferretdb-2.5.0
DOCUMENTDB_VERSION=0.106-0
# What documentdb_api.binary_extended_version() must say after the version (FerretDB 2.5.0 warns otherwise).
DOCUMENTDB_GITREF='HEAD sha:beb9d25d98 buildId:0'
PGVECTOR_TAG=v0.8.0
PGVECTOR_VERSION=0.8.0
FERRETDB_VERSION=v2.5.0
VENDOR=$ROOT/deploy/vendor
CACHE=${STRATUM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stratum}
SYSTEM_ONLY=0
if [ "${1:-}" = --system ]; then
  SYSTEM_ONLY=1
  # Under sudo, HOME may still be the calling user's: keep root's build trees out of that user's cache.
  [ -n "${STRATUM_CACHE_DIR:-}" ] || CACHE=/var/cache/stratum
fi

T0=$(date +%s)
DID=0 # something was installed or built (then the last line says so)
log() { echo "install-store: $*" >&2; }
die() { echo "install-store: error: $*" >&2; exit 1; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1

mkdir -p "$CACHE"
# One installer at a time (npm start, npm test and jest's global setup may all call it).
exec 9>"$CACHE/install-store.lock"
flock 9

# ---- which pieces are in place ----------------------------------------------------------------------------------
control_version() { sed -n "s/^default_version = '\(.*\)'\$/\1/p" "$1" 2>/dev/null; }
vector_installed() {
  [ "$(control_version "$PG_EXT/vector.control")" = "$PGVECTOR_VERSION" ] && [ -f "$PG_LIB/vector.so" ]
}
documentdb_installed() {
  [ "$(control_version "$PG_EXT/documentdb.control")" = "$DOCUMENTDB_VERSION" ] &&
    [ "$(control_version "$PG_EXT/documentdb_core.control")" = "$DOCUMENTDB_VERSION" ] &&
    [ "$(control_version "$PG_EXT/documentdb_extended_rum.control")" = "$DOCUMENTDB_VERSION" ] &&
    [ -f "$PG_LIB/pg_documentdb.so" ] && [ -f "$PG_LIB/pg_documentdb_core.so" ] && [ -f "$PG_LIB/pg_documentdb_extended_rum.so" ]
}
# Runtime: the server and the extensions `documentdb` requires. Build: what compiling pgvector and DocumentDB needs
# (patch(1) applies our libbson patch; systemtap-sdt-dev has the <sys/sdt.h> that the extended RUM's sort code includes
# through PostgreSQL's probes.h).
RUNTIME_PKGS="postgresql-$PG_MAJOR postgresql-$PG_MAJOR-cron postgresql-$PG_MAJOR-postgis-3 postgresql-$PG_MAJOR-rum"
BUILD_PKGS="build-essential pkg-config patch postgresql-server-dev-$PG_MAJOR libpq-dev libicu-dev libkrb5-dev libbson-dev libpcre2-dev libintelrdfpmath-dev systemtap-sdt-dev"
missing_pkgs() { sh "$ROOT/deploy/scripts/apt-install.sh" --missing "$@"; }
NEED_BUILD=0
{ vector_installed && documentdb_installed; } || NEED_BUILD=1
if [ "$NEED_BUILD" = 1 ]; then MISSING=$(missing_pkgs $RUNTIME_PKGS $BUILD_PKGS); else MISSING=$(missing_pkgs $RUNTIME_PKGS); fi

# resolve_src ENV_VALUE VENDOR_FILE: the source to build from, or nothing.
resolve_src() {
  if [ -n "$1" ]; then
    [ -e "$1" ] || die "source not found: $1"
    echo "$1"
  elif [ -f "$2" ]; then
    echo "$2"
  fi
}
DOCUMENTDB_FROM=$(resolve_src "${DOCUMENTDB_SRC:-}" "$VENDOR/documentdb-0.106.0-ferretdb-2.5.0.tar.gz")
PGVECTOR_FROM=$(resolve_src "${PGVECTOR_SRC:-}" "$VENDOR/pgvector-0.8.0.tar.gz")
no_sources() {
  die "DocumentDB $DOCUMENTDB_TAG / pgvector $PGVECTOR_TAG are not installed in PostgreSQL $PG_MAJOR and there is no
source to build them from (deploy/vendor/ is missing its tarballs). Either install FerretDB's own DocumentDB packages
for PostgreSQL $PG_MAJOR (the postgresql-$PG_MAJOR-documentdb .deb of the $DOCUMENTDB_TAG release at
https://github.com/FerretDB/documentdb/releases, plus pgvector $PGVECTOR_VERSION), or point DOCUMENTDB_SRC and
PGVECTOR_SRC at the sources (a tarball, a directory or a git repository with the tags) and run this again."
}
if [ "$NEED_BUILD" = 1 ]; then
  { vector_installed || [ -n "$PGVECTOR_FROM" ]; } || no_sources
  { documentdb_installed || [ -n "$DOCUMENTDB_FROM" ]; } || no_sources
fi

if [ "$IS_ROOT" = 0 ] && { [ -n "$MISSING" ] || [ "$NEED_BUILD" = 1 ]; }; then
  [ -n "$MISSING" ] && log "missing Debian packages: $MISSING"
  [ "$NEED_BUILD" = 1 ] && log "missing in PostgreSQL $PG_MAJOR: pgvector $PGVECTOR_VERSION and/or DocumentDB $DOCUMENTDB_VERSION"
  die "these steps need root; run
    sudo sh $ROOT/deploy/scripts/install-store.sh --system
then run this again (or the command that called it)."
fi

# ---- 1. Debian packages -------------------------------------------------------------------------------------------
if [ -n "$MISSING" ]; then
  t=$(date +%s)
  # shellcheck disable=SC2086 # a list of package names
  sh "$ROOT/deploy/scripts/apt-install.sh" install-store --no-install-recommends $MISSING
  log "Debian packages installed ($(elapsed "$t"))"
  DID=1
fi

# get_src SRC TAG DEST: a git repository (checked out at TAG), a directory (copied) or a tarball (unpacked, its one
# top-level directory moved up) into DEST.
get_src() {
  rm -rf "$3" && mkdir -p "$(dirname "$3")"
  if [ -d "$1" ] && git -C "$1" rev-parse -q --verify "$2^{commit}" >/dev/null 2>&1; then
    git clone -q --no-checkout "$1" "$3"
    git -C "$3" -c advice.detachedHead=false checkout -q "$2"
  elif [ -d "$1" ]; then
    cp -R "$1" "$3"
  else
    mkdir -p "$3.unpack"
    tar -xf "$1" -C "$3.unpack"
    if [ "$(ls -A "$3.unpack" | wc -l)" = 1 ] && [ -d "$3.unpack/$(ls -A "$3.unpack")" ]; then
      mv "$3.unpack/$(ls -A "$3.unpack")" "$3" && rmdir "$3.unpack"
    else
      mv "$3.unpack" "$3"
    fi
  fi
}
# src_key SRC: what identifies a source, so a cached build tree is reused only for the same one.
src_key() {
  if [ -f "$1" ]; then sha256sum "$1" | cut -c1-16; else echo "dir:$(cd "$1" && pwd)"; fi
}
JOBS=$(nproc)
BUILD=$CACHE/build
# Keeps DocumentDB's Makefile.versions from reading the version of a git repository the cache may sit in.
export GIT_CEILING_DIRECTORIES=$BUILD

# ---- 2a. pgvector -------------------------------------------------------------------------------------------------
if vector_installed; then
  :
else
  t=$(date +%s)
  DIR=$BUILD/pgvector
  KEY="$(src_key "$PGVECTOR_FROM") $PGVECTOR_TAG $($PG_BIN/pg_config --version)"
  if [ "$(cat "$DIR/.stratum-built" 2>/dev/null)" = "$KEY" ]; then
    log "pgvector $PGVECTOR_VERSION: installing the cached build"
  else
    log "pgvector $PGVECTOR_VERSION: building from $PGVECTOR_FROM"
    get_src "$PGVECTOR_FROM" "$PGVECTOR_TAG" "$DIR"
    [ "$(control_version "$DIR/vector.control")" = "$PGVECTOR_VERSION" ] || die "$PGVECTOR_FROM is not pgvector $PGVECTOR_VERSION"
    # OPTFLAGS="": no -march=native, so the library runs on any x86-64 this cache or image is copied to.
    make -s -C "$DIR" -j"$JOBS" OPTFLAGS="" PG_CONFIG=$PG_BIN/pg_config >"$DIR.log" 2>&1 || { tail -30 "$DIR.log" >&2; die "pgvector build failed (log: $DIR.log)"; }
    echo "$KEY" >"$DIR/.stratum-built"
  fi
  make -s -C "$DIR" install OPTFLAGS="" PG_CONFIG=$PG_BIN/pg_config >>"$DIR.log" 2>&1 || { tail -30 "$DIR.log" >&2; die "pgvector install failed"; }
  vector_installed || die "pgvector installed, but $PG_EXT/vector.control does not say $PGVECTOR_VERSION"
  log "pgvector $PGVECTOR_VERSION installed into PostgreSQL $PG_MAJOR ($(elapsed "$t"))"
  DID=1
fi

# ---- 2b. DocumentDB -----------------------------------------------------------------------------------------------
if documentdb_installed; then
  grep -aq "$DOCUMENTDB_GITREF" "$PG_LIB/pg_documentdb.so" ||
    log "warning: the installed pg_documentdb.so does not report '$DOCUMENTDB_GITREF' (FerretDB will log 'Unexpected DocumentDB version')"
else
  t=$(date +%s)
  DIR=$BUILD/documentdb
  PATCH=$VENDOR/documentdb-libbson-1.23.patch
  KEY="extended_rum $(src_key "$DOCUMENTDB_FROM") $(sha256sum "$PATCH" | cut -c1-16) $($PG_BIN/pg_config --version)"
  # Makefile.cflags runs pkg-config for intelmathlib on every make, install included (the .pc file is written below).
  export PKG_CONFIG_PATH="$DIR/.pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  if [ "$(cat "$DIR/.stratum-built" 2>/dev/null)" = "$KEY" ]; then
    log "DocumentDB $DOCUMENTDB_TAG: installing the cached build"
  else
    log "DocumentDB $DOCUMENTDB_TAG: building from $DOCUMENTDB_FROM (about half a minute on 2 cores)"
    get_src "$DOCUMENTDB_FROM" "$DOCUMENTDB_TAG" "$DIR"
    [ "$(control_version "$DIR/pg_documentdb/documentdb.control")" = "$DOCUMENTDB_VERSION" ] || die "$DOCUMENTDB_FROM is not DocumentDB $DOCUMENTDB_TAG"
    # Debian 12's libbson 1.23 lacks BSON_SUBTYPE_SENSITIVE (libbson >= 1.25): our one-file patch.
    patch -s -p1 -d "$DIR" <"$PATCH"
    # DocumentDB's Makefile.cflags asks pkg-config for `intelmathlib`; Debian's libintelrdfpmath-dev ships the library
    # DocumentDB builds (libbidgcc000.a: CALL_BY_REF=0 GLOBAL_RND=0 GLOBAL_FLAGS=0) but no .pc file.
    mkdir -p "$DIR/.pkgconfig"
    MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    cat >"$DIR/.pkgconfig/intelmathlib.pc" <<EOF
prefix=/usr
libdir=\${prefix}/lib/$MULTIARCH
includedir=\${prefix}/include

Name: intelmathlib
Description: Intel Decimal Floating point math library (Debian libintelrdfpmath-dev)
Version: 2.0 Update 2
Cflags: -I\${includedir}
Libs: -L\${libdir} -lbidgcc000
EOF
    # Without git, DocumentDB's build would report "gitref: unknown"; write what the tag's checkout gives.
    if [ ! -d "$DIR/.git" ]; then
      mkdir -p "$DIR/pg_documentdb/build/include/metadata"
      cat >"$DIR/pg_documentdb/build/include/metadata/documentdb_extension_version.h" <<EOF
// Autogenerated header for versioning (written by deploy/scripts/install-store.sh: $DOCUMENTDB_TAG without git)
#define EXTENSION_VERSION_STR "0.106.0"
#define GIT_VERSION "$DOCUMENTDB_GITREF"
EOF
    fi
    pkg-config --exists libbson-static-1.0 intelmathlib libpcre2-8 || die "pkg-config cannot find libbson-static-1.0, intelmathlib or libpcre2-8"
    # The extended RUM index access method (internal/, which FerretDB's own packages leave out) is the one that can
    # return rows in index order, so sorted lists read a range in order (docs/stores.md, "Indexes"). It links
    # against ../../pg_documentdb, so it is built after it, in the same tree.
    for ext in pg_documentdb_core pg_documentdb internal/pg_documentdb_extended_rum; do
      make -s -C "$DIR/$ext" -j"$JOBS" PG_CONFIG=$PG_BIN/pg_config >>"$DIR.log" 2>&1 || { tail -30 "$DIR.log" >&2; die "DocumentDB build failed in $ext (log: $DIR.log)"; }
      # A shared object links with unresolved symbols: make sure none of libbson or the decimal library is missing.
      if nm -D --undefined-only "$DIR/$ext/$(basename "$ext").so" | awk '{print $2}' | grep -E '^(bson_|bcon_|__bid|bid[0-9]+_)' >&2; then
        die "$ext.so has unresolved libbson / decimal-library symbols (listed above)"
      fi
    done
    echo "$KEY" >"$DIR/.stratum-built"
  fi
  for ext in pg_documentdb_core pg_documentdb internal/pg_documentdb_extended_rum; do
    make -s -C "$DIR/$ext" install PG_CONFIG=$PG_BIN/pg_config >>"$DIR.log" 2>&1 || { tail -30 "$DIR.log" >&2; die "DocumentDB install failed in $ext"; }
  done
  documentdb_installed || die "DocumentDB installed, but its .control files do not say $DOCUMENTDB_VERSION"
  log "DocumentDB $DOCUMENTDB_TAG installed into PostgreSQL $PG_MAJOR ($(elapsed "$t"))"
  DID=1
fi

[ "$SYSTEM_ONLY" = 1 ] && { log "system steps done ($(elapsed "$T0"))"; exit 0; }

# ---- 3. FerretDB --------------------------------------------------------------------------------------------------
BIN=$CACHE/ferretdb-$FERRETDB_VERSION/ferretdb
TOOL=$ROOT/.tools/bin/ferretdb
is_version() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "version: $FERRETDB_VERSION\$"; }
if ! is_version "$BIN"; then
  t=$(date +%s)
  command -v go >/dev/null 2>&1 || PATH=$PATH:/usr/local/go/bin
  command -v go >/dev/null 2>&1 || die "Go >= 1.24 is needed to build FerretDB $FERRETDB_VERSION (go not found on PATH nor in /usr/local/go/bin; Debian 12's golang-go is 1.19: install Go from https://go.dev/dl/)"
  GOMINOR=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  [ -n "$GOMINOR" ] && [ "$GOMINOR" -ge 24 ] || die "Go >= 1.24 is needed to build FerretDB $FERRETDB_VERSION (found $(go env GOVERSION))"
  log "FerretDB $FERRETDB_VERSION: building from the Go module proxy (up to a minute on 2 cores the first time)"
  # `go mod download` rather than `go install …@version`: the proxy here refuses the module's version list, which
  # `go install` reads; and the module zip lacks build/version/version.txt, which FerretDB needs at start.
  MODDIR=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB/v2@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$MODDIR" ] && [ -d "$MODDIR" ] || die "go mod download gave no module directory for github.com/FerretDB/FerretDB/v2@$FERRETDB_VERSION"
  SRC=$BUILD/ferretdb-$FERRETDB_VERSION
  rm -rf "$SRC" && mkdir -p "$BUILD"
  cp -R "$MODDIR" "$SRC"
  chmod -R u+w "$SRC"
  printf '%s\n' "$FERRETDB_VERSION" >"$SRC/build/version/version.txt"
  if [ "$GOMINOR" -ge 25 ]; then
    # FerretDB v2.5.0 defines setGOMAXPROCS only for Go < 1.25 (gomaxprocs.go, //go:build !go1.25); Go 1.25+ sizes
    # GOMAXPROCS from the CPU limit itself. This no-op is the missing Go >= 1.25 counterpart.
    cat >"$SRC/cmd/ferretdb/gomaxprocs_go125.go" <<'EOF'
// Local build patch (Stratum deploy/scripts/install-store.sh): the Go >= 1.25 counterpart of gomaxprocs.go.
//
//go:build go1.25

package main

import "log/slog"

func setGOMAXPROCS(_ *slog.Logger) {}
EOF
  fi
  mkdir -p "$(dirname "$BIN")"
  (cd "$SRC" && GOFLAGS=-buildvcs=false go build -trimpath -o "$BIN.tmp" ./cmd/ferretdb) >"$SRC.log" 2>&1 || { tail -30 "$SRC.log" >&2; die "FerretDB build failed (log: $SRC.log)"; }
  mv "$BIN.tmp" "$BIN"
  is_version "$BIN" || die "the built $BIN does not report version $FERRETDB_VERSION"
  log "FerretDB $FERRETDB_VERSION built into $BIN ($(elapsed "$t"))"
fi
if ! cmp -s "$BIN" "$TOOL"; then
  mkdir -p "$(dirname "$TOOL")"
  cp "$BIN" "$TOOL.tmp" && mv "$TOOL.tmp" "$TOOL"
  log "FerretDB $FERRETDB_VERSION copied to .tools/bin/ferretdb"
  DID=1
fi
if [ "$DID" = 1 ]; then
  log "store ready: PostgreSQL $PG_MAJOR + DocumentDB $DOCUMENTDB_VERSION + pgvector $PGVECTOR_VERSION, FerretDB $FERRETDB_VERSION ($(elapsed "$T0"))"
fi
