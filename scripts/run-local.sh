#!/usr/bin/env bash
# The whole system on this machine: a local kube-apiserver + etcd (unless --kubeconfig names a
# cluster), the CRD, the operator, one data plane, sample replicas and example pools.
# Ctrl-C stops everything it started. --help lists the flags.
# --cluster: the same system as Pods in a one-node Kubernetes cluster on this machine
# (scripts/run-local-cluster.sh, scripts/local-cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --cluster ]; then
  shift
  exec scripts/run-local-cluster.sh "$@"
fi
t0=$(date +%s)
say() { printf '[run-local] %s\n' "$*" >&2; }

scripts/ensure-tools.sh
case " $* " in
  *" --kubeconfig"*) ;;
  *) scripts/provision-k8s.sh ;;
esac

jar=local/target/replicapool-local.jar
if [ ! -f "$jar" ] || [ -n "$(find . -path ./.git -prune -o \( -name '*.java' -o -name pom.xml -o -name '*.xml' -path '*/resources/*' \) -newer "$jar" -print -quit)" ]; then
  say "building (first time: a few minutes) ..."
  if ! mvn -B -q -ntp -DskipTests -Dspotless.check.skip=true package -pl local -am; then
    say "the build failed: see the Maven output above"
    exit 1
  fi
fi
say "ready to start after $(( $(date +%s) - t0 ))s of preparation"
exec java -XX:+UseSerialGC -jar "$jar" "$@"
