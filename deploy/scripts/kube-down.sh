#!/bin/sh
# Removes what the podman overlay's run leaves when its process was killed without its own teardown (kube-up.sh or
# test-containers.sh stopped with SIGKILL): the eight pods, the network anchor pod, the podman secrets and the tokens
# volume. The network stratum-kube stays (empty, it costs nothing). Idempotent.
set -u
command -v podman >/dev/null 2>&1 || exit 0
for svc in gateway event-query lbaas-quota domain-quota; do
  for i in 0 1 2; do podman pod rm -f "$svc-pod-$i" >/dev/null 2>&1; done
done
podman pod rm -f stratum-kube-anchor >/dev/null 2>&1
for s in stratum-identity stratum-connections stratum-tokens; do podman secret rm "$s" >/dev/null 2>&1; done
podman volume rm -f stratum-tokens >/dev/null 2>&1
echo "kube-down: podman overlay pods, secrets and volume removed"
