#!/usr/bin/env bash
# `scripts/run-local.sh --cluster`: the whole system as Pods in the one-node cluster of
# scripts/local-cluster.sh: the images built without Docker (scripts/build-images.sh --oci) and
# imported, `kubectl apply -k manifests/`, the sample pool of manifests/samples/tracking.yaml.
# Ctrl-C removes what it installed, and brings the cluster down if this run brought it up.
#   --rebuild-images   build target/images/ again even if it is there
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
STATE="${LOCAL_CLUSTER_DIR:-$HOME/.replicapool/local-cluster}"
export KUBECONFIG="$STATE/kubeconfig"
KUBECTL="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${K8S_VERSION:-1.32.4}-linux-amd64/kubectl"
rebuild=0
for a in "$@"; do
  case "$a" in
    --rebuild-images) rebuild=1 ;;
    *) echo "run-local --cluster: unknown flag $a (only --rebuild-images)" >&2; exit 2 ;;
  esac
done

step=0
progress() { step=$((step + 1)); printf '[%d/6] %-70s' "$step" "$1 ..."; s0=$(date +%s); }
done_() { printf ' %5s s\n' "$(( $(date +%s) - s0 ))"; }
fail() {
  printf '\nrun-local --cluster FAILED at step %d: %s\n' "$step" "$1" >&2
  echo "what to do: $2" >&2
  exit 1
}
k() { "$KUBECTL" "$@"; }
logs=target/run-local-cluster
mkdir -p "$logs"

started_cluster=0
cleanup() {
  echo
  echo "stopping everything this run started ..."
  k delete -f manifests/samples/tracking.yaml --ignore-not-found --wait=false >/dev/null 2>&1 || true
  k delete -k manifests/ --ignore-not-found --wait=false >/dev/null 2>&1 || true
  [ "$started_cluster" = 0 ] || scripts/local-cluster.sh down
}

progress "the local cluster (scripts/local-cluster.sh up)"
if ! scripts/local-cluster.sh status 2>/dev/null | grep -q 'API server https://'; then
  scripts/local-cluster.sh up > "$logs/up.log" 2>&1 \
    || fail "local-cluster.sh up: $(tail -3 "$logs/up.log")" "read $logs/up.log; scripts/local-cluster.sh check says what the machine lacks"
  started_cluster=1
fi
trap cleanup EXIT
trap 'exit 130' INT TERM
done_

progress "the images (scripts/build-images.sh --oci) into the node's containerd"
if [ "$rebuild" = 1 ] || ! ls target/images/{operator,dataplane,sample-replica}.tar >/dev/null 2>&1; then
  scripts/build-images.sh --oci > "$logs/images.log" 2>&1 \
    || fail "build-images.sh --oci: $(tail -3 "$logs/images.log")" "read $logs/images.log"
fi
scripts/local-cluster.sh load-images target/images > "$logs/load.log" 2>&1 \
  || fail "load-images: $(tail -3 "$logs/load.log")" "read $logs/load.log"
done_

progress "kubectl apply -k manifests/"
manifests/generate-token.sh >/dev/null
k apply -k manifests/ > "$logs/apply.log" 2>&1 || fail "$(tail -3 "$logs/apply.log")" "read $logs/apply.log"
done_

progress "waiting for the operator (leader) and the data planes"
k -n replicapool-system wait --for=jsonpath='{.status.readyReplicas}'=1 deployment/replicapool-operator --timeout=300s >/dev/null \
  || fail "no operator became leader and ready" "k -n replicapool-system logs deploy/replicapool-operator"
k -n replicapool-system rollout status deployment/replicapool-dataplane --timeout=300s >/dev/null \
  || fail "the data planes are not ready" "k -n replicapool-system describe pods"
done_

progress "kubectl apply -f manifests/samples/tracking.yaml"
k apply -f manifests/samples/tracking.yaml >/dev/null
k -n shop rollout status deployment/tracking --timeout=300s >/dev/null || fail "the sample replicas are not ready" "k -n shop describe pods"
k -n shop wait rp/tracking --for=condition=Ready --timeout=120s >/dev/null || fail "pool tracking not Ready" "k -n shop describe rp tracking"
done_

progress "waiting for traffic through the data plane's Service"
dp=$(k -n replicapool-system get svc replicapool-dataplane -o jsonpath='{.spec.clusterIP}')
admin=$(k -n replicapool-system get svc replicapool-dataplane-admin -o jsonpath='{.spec.clusterIP}')
for _ in $(seq 1 60); do
  curl --noproxy '*' -sf -o /dev/null -H 'Host: tracking.shop.example' "http://$dp/track/1" && break
  sleep 1
done
curl --noproxy '*' -sf -o /dev/null -H 'Host: tracking.shop.example' "http://$dp/track/1" || fail "no answer from http://$dp" "k -n replicapool-system logs deploy/replicapool-dataplane"
done_

member=$(k -n shop get pods -l app=tracking -o jsonpath='{.items[0].status.podIP} {.items[0].metadata.name}')
cat <<TEXT

ReplicaPool runs as Pods in the local cluster (ready in $(( $(date +%s) - t0 )) s). In another terminal:

  export KUBECONFIG=$KUBECONFIG
  kubectl get pods -A -o wide
  kubectl -n shop get rp
  kubectl -n shop describe rp tracking

Send traffic through the data plane's Service (its ClusterIP is routed from this machine):
  curl -si -H 'Host: tracking.shop.example' http://$dp/track/42     # round-robin over the 3 Pods
Data plane admin:  http://$admin:9901/status   http://$admin:9901/metrics

Break something and watch \`kubectl -n shop get rp -w\`:
  curl -X POST 'http://${member% *}:8080/admin/slow?ms=500'    # ${member#* } turns slow: Unhealthy, no traffic
  curl -X POST  http://${member% *}:8080/admin/reset
  kubectl -n shop delete pod ${member#* }                    # a member goes; its replacement joins
  kubectl -n shop scale deployment/tracking --replicas=4
  kubectl -n shop rollout restart deployment/tracking

Pods:
TEXT
k get pods -A -o wide
echo
echo "Logs: kubectl logs, and the cluster's own in $STATE/logs/. Ctrl-C stops everything."
# In the background and waited for, so that Ctrl-C (or a TERM) is handled at once.
while true; do sleep 3600 & wait $!; done
