#!/bin/sh
# The podman overlay up on this machine (two replicas per process, the machine's Redis and RabbitMQ, FerretDB on the
# test cluster with a database of its own), kept up until Ctrl-C, which takes it all down. Prints the gateways'
# addresses and an admin token. Same steps as `pnpm test:containers` without the checks (deploy/container-test/run.ts).
set -eu
exec sh "$(dirname -- "$0")/test-containers.sh" --up
