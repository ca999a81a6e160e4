#!/usr/bin/env bash
# The data plane as users run it, beside HAProxy and nginx (one thread each) against three static
# nginx backends:
#  - "shipped": started exactly as its image starts it (the ENTRYPOINT of dataplane/Dockerfile,
#    read from the file) with -XX:MaxRAM standing in for the manifest's memory limit (read from
#    manifests/dataplane.yaml), the manifest's flags (access log to stdout, drain), one event loop;
#  - "lean": the same jar with the heap flags of bench/proxy/fast.sh (-Xms64m -Xmx256m);
#  - "candidate", when CANDIDATE="flags..." is set: the image's flags plus these (how the image's
#    flags are chosen: docs/BENCHMARKS.md); CANDIDATE_ARGS="--flag=value ..." gives it data-plane
#    flags after the manifest's (e.g. CANDIDATE_ARGS=--warm-up-seconds=0);
# both fed by the real operator of a local run (scripts/run-local.sh: API server, operator probing
# its example pools, sample replicas, all running beside the benchmark as a node has neighbours),
# with a pool applied by kubectl and completed by the CRD's defaults.
#   bench/proxy/shipped.sh         ROUNDS=3 DURATION=5 CONNS=32 WARMUP=15 [CANDIDATE=...] [CANDIDATE_ARGS=...]
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; CONNS=${CONNS:-32}; WARMUP=${WARMUP:-15}
source "$(dirname "$0")/../lib/as-shipped.sh"
RES="$OUT/shipped.tsv"
LEAN_PORT=$((BACKEND_BASE + 16)); LEAN_ADMIN=$((BACKEND_BASE + 17))
CAND_PORT=$((BACKEND_BASE + 4)); CAND_ADMIN=$((BACKEND_BASE + 5)) # backends use +1..+3 here
log "machine: $(machine)"
log "shipped JVM flags: $SHIPPED_FLAGS"
local_run_start
bench_pool_apply
# shellcheck disable=SC2086 # the flags are words
dp_start shipped $DP_PORT $DP_ADMIN $SHIPPED_FLAGS
dp_start lean $LEAN_PORT $LEAN_ADMIN -Xms64m -Xmx256m -XX:+UseParallelGC
TARGETS=(shipped lean haproxy nginx direct)
if [ -n "${CANDIDATE:-}${CANDIDATE_ARGS:-}" ]; then
  log "candidate JVM flags: $SHIPPED_FLAGS ${CANDIDATE:-}; data-plane flags: $SHIPPED_ARGS ${CANDIDATE_ARGS:-}"
  # shellcheck disable=SC2086
  DP_ARGS="${CANDIDATE_ARGS:-}" dp_start candidate $CAND_PORT $CAND_ADMIN $SHIPPED_FLAGS ${CANDIDATE:-}
  TARGETS+=(candidate)
fi
"$KUBECTL" wait --for=condition=Ready rp/bench --timeout=60s >/dev/null
"$KUBECTL" get rp bench -o wide | tee -a "$OUT/log.txt"
haproxy_start 1 roundrobin 3
nginx_start 1 "" 3
declare -A PORT=([shipped]=$DP_PORT [lean]=$LEAN_PORT [haproxy]=$HAPROXY_PORT [nginx]=$NGINX_PORT [direct]=$((BACKEND_BASE + 1)) [candidate]=$CAND_PORT)
declare -A PID=([shipped]=$SHIPPED_PID [lean]=$LEAN_PID [haproxy]=$HAPROXY_PID [nginx]=$NGINX_PID [direct]=$STATIC_PID [candidate]=${CANDIDATE_PID:-0})
wrk_header
# The JIT ramp of the shipped data plane: req/s in each of its first seconds under load.
log "shipped data plane ramp, req/s per second from start:$(jit_ramp $DP_PORT "$WARMUP")"
for x in "${TARGETS[@]:1}"; do
  w=3; [[ $x == lean || $x == candidate ]] && w=$WARMUP # the JVMs get the same warm-up
  wrk -t1 -c"$CONNS" -d${w}s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$x]}/track/1" >/dev/null
done
for r in $(seq 1 "$ROUNDS"); do
  for i in "${!TARGETS[@]}"; do
    x=${TARGETS[$(( (i + r - 1) % ${#TARGETS[@]} ))]}
    wrk_round "$x" "${PORT[$x]}" "${PID[$x]}" "$r"
  done
done
wrk_summary "${TARGETS[@]}"
# Bytes allocated per forwarded request by the data planes' event loops (JFR, started by jcmd).
for x in "${TARGETS[@]}"; do
  [[ $x == shipped || $x == lean || $x == candidate ]] || continue
  read -r bytes n <<<"$(alloc_per_request "${PID[$x]}" "${PORT[$x]}")"
  log "$x: $bytes bytes allocated per request on the event loops ($n requests)"
  echo -e "$x\t$bytes\t$n" >> "$OUT/alloc.tsv"
done
