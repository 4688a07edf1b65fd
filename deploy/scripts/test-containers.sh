#!/bin/sh
# `pnpm test:containers`: the Kubernetes manifests' podman overlay run with `podman kube play` on this machine, two
# replicas per process, checked (deploy/container-test/run.ts). From a fresh clone: installs pnpm and the
# dependencies, the store, podman (deploy/scripts/install-podman.sh), builds the four images (`pnpm images`), then runs.
# Prints "containers test: SKIPPED: <reason>" and exits 0 only when not root, podman cannot be installed or kubectl is
# missing; any other failure fails. With --up (deploy/scripts/kube-up.sh) the stack stays up until Ctrl-C instead of being checked.
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
skip() { echo "containers test: SKIPPED: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root (rootful podman builds and plays the images; run as root)"
sh "$ROOT/deploy/scripts/install-podman.sh" || skip "podman could not be installed (deploy/scripts/install-podman.sh, above)"
command -v kubectl >/dev/null 2>&1 || skip "kubectl not found (it renders deploy/kubernetes with kustomize; install kubectl to run this test)"
sh "$ROOT/deploy/scripts/ensure-pnpm.sh"
sh "$ROOT/deploy/scripts/install-store.sh"
cd "$ROOT"
T0=$(date +%s)
sh deploy/scripts/build-images.sh
echo "containers test: images built in $(($(date +%s) - T0)) s"
# node itself (no pnpm/tsx wrapper processes): Ctrl-C then reaches only the runner, which takes the stack down.
exec node --import tsx deploy/container-test/run.ts "$@"
