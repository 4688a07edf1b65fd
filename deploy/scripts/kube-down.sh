#!/bin/sh
# Removes what the podman overlay's run leaves when its process was killed without its own teardown (kube-up.sh or
# test-containers.sh stopped with SIGKILL): the eight pods, the network anchor pod, the podman secrets and the tokens
# volume. The network stratum-kube stays (empty, it costs nothing). Idempotent.
set -u
command -v podman >/dev/null 2>&1 || exit 0
for pod in stratum-kube-anchor $(for svc in gateway event-query lbaas-quota domain-quota; do echo "$svc-pod-0 $svc-pod-1 $svc-pod-2"; done); do
  # 2 s to stop: with their store forwarders gone the processes cannot drain cleanly anyway.
  podman pod exists "$pod" 2>/dev/null && podman pod rm -f -t 2 "$pod" >/dev/null 2>&1
done
for s in stratum-identity stratum-connections stratum-tokens; do podman secret rm "$s" >/dev/null 2>&1; done
podman volume rm -f stratum-tokens >/dev/null 2>&1
echo "kube-down: podman overlay pods, secrets and volume removed"
