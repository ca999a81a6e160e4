#!/usr/bin/env bash
# Item 5 of issue 6 through the real stack (kube-apiserver + etcd, operator, data plane, replica
# processes): death to removal (KILLS kills, probes every 200 ms with a 100 ms timeout), lease expiry
# to removal (900 ms leases), operator publish to data-plane applied. Needs scripts/provision-k8s.sh.
#   bench/convergence/run.sh        KILLS=20 LEASE_KILLS=20
source "$(dirname "$0")/../lib/common.sh"
log "machine: $(machine)"
cd "$ROOT"
"$JAVA" -Xmx512m -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
  dev.replicapool.bench.ConvergenceBenchmark --kills "${KILLS:-20}" --lease-kills "${LEASE_KILLS:-20}" \
  --interval 200 --timeout 100 --crds "$ROOT/crds/" 2>"$OUT/convergence.err" | tee "$OUT/convergence.txt"
log "load after: $(loadavg)"
