#!/usr/bin/env bash
# The whole test suite on a real kube-apiserver and etcd, with real local replica processes, then
# the install on a real one-node cluster (scripts/local-cluster.sh) from images built of the jars
# just tested. Provisions what it needs first (idempotent, offline once cached: see
# scripts/provision-k8s.sh and scripts/provision-cluster.sh). REPLICAPOOL_CLUSTER_E2E=0 leaves the
# cluster part out (it needs root and a few minutes). ImagesTest runs again once the tars exist.
# Between the two, every parser is fuzzed for a bounded time (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cluster=${REPLICAPOOL_CLUSTER_E2E:-1}
scripts/ensure-tools.sh
scripts/provision-k8s.sh
scripts/provision-h2spec.sh
scripts/provision-jaeger.sh
[ "$cluster" = 0 ] || scripts/provision-cluster.sh
mvn -B -ntp -Dstyle.color=never verify "$@"
scripts/fuzz.sh
[ "$cluster" = 0 ] && exit 0
scripts/build-images.sh --oci --skip-maven
exec mvn -B -ntp -Dstyle.color=never -pl e2e -am verify -Dtest=ImagesTest -Dit.test=LocalClusterE2E \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
