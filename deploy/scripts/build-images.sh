#!/bin/sh
# `pnpm images`: builds the four OCI images, localhost/stratum-<service>:<tag> and :dev (deploy/containers/README.md).
#
#   sh deploy/scripts/build-images.sh [service ...]      default: gateway event-query lbaas-quota domain-quota
#
# 1. podman and its configuration (deploy/scripts/install-podman.sh; root when something is missing).
# 2. The workspace's dependencies (ensure-pnpm.sh), for esbuild and the bundled packages.
# 3. The base: $STRATUM_BASE_IMAGE when set (e.g. docker.io/library/node:20-bookworm-slim where a registry is
#    reachable), else localhost/stratum-node:20 built here (deploy/scripts/node-base.sh; skipped when it exists).
# 4. Per service: bundle into var/images/<service>/ (deploy/containers/bundle.mjs), then `podman build` of
#    deploy/containers/Containerfile with that directory as the context.
# Tag: $STRATUM_IMAGE_TAG, else `git describe --always --dirty`, else dev; every image is also tagged :dev.
# Prints one line per image on stdout: name, size, build seconds. Progress and errors go to stderr; exits 1 on error.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
log() { echo "build-images: $*" >&2; }
die() { echo "build-images: error: $*" >&2; exit 1; }
SERVICES=${*:-gateway event-query lbaas-quota domain-quota}
T0=$(date +%s)

port_of() {
  case $1 in
    gateway) echo 8780 ;;
    event-query) echo 8781 ;;
    lbaas-quota) echo 8782 ;;
    domain-quota) echo 8783 ;;
    *) die "unknown service '$1' (gateway, event-query, lbaas-quota, domain-quota)" ;;
  esac
}
for s in $SERVICES; do port_of "$s" >/dev/null; done

if ! command -v podman >/dev/null 2>&1 || [ ! -f /etc/containers/containers.conf.d/stratum.conf ]; then
  sh "$ROOT/deploy/scripts/install-podman.sh" || die "podman is not installed and could not be (see above)"
fi
[ "$(id -u)" -eq 0 ] || die "run as root: the images are built with rootful podman (the node base needs debootstrap)"
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"

if [ -n "${STRATUM_BASE_IMAGE:-}" ]; then
  BASE=$STRATUM_BASE_IMAGE
else
  BASE=$(sh "$ROOT/deploy/scripts/node-base.sh")
fi
TAG=${STRATUM_IMAGE_TAG:-$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo dev)}
log "base $BASE, tag $TAG"

RESULTS=""
for s in $SERVICES; do
  T=$(date +%s)
  CTX=$ROOT/var/images/$s
  (cd "$ROOT" && node deploy/containers/bundle.mjs "$s" "$CTX") || die "bundling $s failed"
  IMAGE=localhost/stratum-$s
  # --format docker: the OCI format has no HEALTHCHECK and podman would drop it.
  podman build --quiet --format docker --network host \
    -f "$ROOT/deploy/containers/Containerfile" \
    --build-arg "BASE=$BASE" --build-arg "SERVICE=$s" --build-arg "PORT=$(port_of "$s")" --build-arg "VERSION=$TAG" \
    -t "$IMAGE:$TAG" -t "$IMAGE:dev" "$CTX" >/dev/null || die "podman build of $IMAGE failed"
  RESULTS="$RESULTS$IMAGE:$TAG $(($(date +%s) - T))
"
done
# The first stage's image is left untagged by podman; only ours carry this label.
podman image prune --force --filter label=stratum.stage=app >/dev/null 2>&1 || true

printf '%s' "$RESULTS" | while read -r image secs; do
  printf '%-44s %8s  %3s s\n' "$image" "$(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')" "$secs"
done
log "done in $(($(date +%s) - T0)) s"
