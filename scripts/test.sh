#!/usr/bin/env bash
# The whole test suite on a real kube-apiserver and etcd, with real local replica processes.
# Provisions what it needs first (idempotent, offline: see scripts/provision-k8s.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh
scripts/provision-k8s.sh
scripts/provision-h2spec.sh
exec mvn -B -ntp -Dstyle.color=never verify "$@"
