#!/usr/bin/env bash
# Item 6 of issue 6 (data-plane side): 1,000 pools x 10 members pushed through a real control-plane
# stream to a DataPlaneMain child process: push-to-last-ACK time, heap after GC, one 10,000-member
# pool. Operator probing CPU/heap at that scale: bench/probing and docs/BENCH-PROBING.md.
#   bench/scale/run.sh         POOLS=1000 MEMBERS=10 ROUNDS=60 (cold = round 1, warm = second half)
source "$(dirname "$0")/../lib/common.sh"
log "machine: $(machine)"
"$JAVA" -Xmx512m -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
  dev.replicapool.bench.ScaleBenchmark --pools "${POOLS:-1000}" --members "${MEMBERS:-10}" \
  --rounds "${ROUNDS:-60}" --logback "$BENCH/harness/logback.xml" 2>"$OUT/scale.err" | tee "$OUT/scale.txt"
log "load after: $(loadavg)"
