#!/usr/bin/env bash
# The whole test suite on a real kube-apiserver and etcd, with real local replica processes, then
# the install on a real one-node cluster (scripts/local-cluster.sh) from images built of the jars
# just tested. Provisions what it needs first (idempotent, offline once cached: see
# scripts/provision-k8s.sh and scripts/provision-cluster.sh). REPLICAPOOL_CLUSTER_E2E=0 leaves the
# cluster part out (it needs root and a few minutes). ImageTarsTest runs once the tars exist.
# Between the two, every parser is fuzzed for a bounded time (scripts/fuzz.sh). Last, the same
# install on a kind cluster made with the kind CLI from a node image built here (KindClusterIT):
# Docker is started for it and stopped after it when this script started it, and the cluster is
# deleted; REPLICAPOOL_KIND_E2E=0 leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."
cluster=${REPLICAPOOL_CLUSTER_E2E:-1}
kind=${REPLICAPOOL_KIND_E2E:-1}
export PATH="$HOME/.local/bin:$PATH"   # where provision-kind.sh puts kind
e2e() {  # one e2e class with the image checks, on the jars just tested and the tars built of them
  mvn -B -ntp -Dstyle.color=never -pl e2e -am verify -Dtest=ImagesTest,ImageTarsTest -Dit.test="$1" \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
}
scripts/ensure-tools.sh
scripts/provision-k8s.sh
scripts/provision-h2spec.sh
scripts/provision-jaeger.sh
[ "$cluster" = 0 ] && [ "$kind" = 0 ] || scripts/provision-cluster.sh
mvn -B -ntp -Dstyle.color=never verify "$@"
scripts/fuzz.sh
[ "$cluster" = 0 ] && [ "$kind" = 0 ] && exit 0
scripts/build-images.sh --oci --skip-maven
[ "$cluster" = 0 ] || e2e LocalClusterE2E
[ "$kind" = 0 ] && exit 0
step() { local t=$SECONDS; "$@"; echo "[test] $* took $((SECONDS - t)) s" >&2; }
docker_was_up=0
docker info >/dev/null 2>&1 && docker_was_up=1
[ "$docker_was_up" = 1 ] || trap 'scripts/provision-docker.sh --stop' EXIT
step scripts/provision-docker.sh
step scripts/provision-kind.sh
step scripts/build-kind-node-image.sh
step e2e KindClusterIT
