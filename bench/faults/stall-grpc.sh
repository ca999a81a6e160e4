#!/usr/bin/env bash
# A gRPC member that accepts calls and then stalls: k2 of 3 sample replicas (grpc-java, h2c)
# SIGSTOPped for 3 s (then SIGCONT), 2 s into a closed-loop run of unary Tracking/Track calls over
# ONE client connection (h2load -c1 -m16 -D7, 16 calls in flight), through the data plane with and
# without hedging (the pool names the Tracking service idempotent: routing.idempotent.grpcMethods),
# and through HAProxy (proto h2, roundrobin). Percentiles from h2load's per-call log.
#   bench/faults/stall-grpc.sh     ROUNDS=1 HEDGE_MS=20
# As stall.sh: the data plane gets fixed snapshots from CpTool (no operator marks the member down).
# A failed call still has HTTP status 200 (grpc-status in its trailers): failures are read from the
# data plane's own answers (replicapool_requests_seconds_count with a 5xx code). In a closed loop
# the calls caught by the stall are few (the 16 streams stop sending while they wait): the max and
# the count of calls over 1 s show them, the percentiles show what everyone else got.
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-1}; HEDGE_MS=${HEDGE_MS:-20}; T=${THREADS:-2}
need h2load haproxy
RES="$OUT/stall-grpc.jsonl"
log "machine: $(machine)"
declare -A GRPC_PID
for i in 1 2 3; do
  "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.replica.SampleReplicaMain --name "k$i" --host 127.0.0.1 --port 0 \
    --grpc-port $((BACKEND_BASE + i)) --threads 1 >"$OUT/backend-k$i.log" 2>&1 &
  PIDS+=($!); GRPC_PID[$i]=$!
done
for i in 1 2 3; do wait_port $((BACKEND_BASE + i)); done
cptool
dataplane "$T"
haproxy_grpc_start $T
printf '\x00\x00\x00\x00\x0242' > "$OUT/track.bin" # one message: the UTF-8 string "42"
SERVICE=/replicapool.sample.Tracking/*
h2() { # port authority seconds logfile
  h2load -c 1 -m 16 -D "$3" --log-file="$4" -d "$OUT/track.bin" -H 'content-type: application/grpc' \
    -H 'te: trailers' -H ":authority: $2" "http://127.0.0.1:$1/replicapool.sample.Tracking/Track" 2>&1
}
dp_failed() { # the data plane's own 5xx answers so far (gRPC: trailers-only UNAVAILABLE/DEADLINE_EXCEEDED)
  curl -s "http://127.0.0.1:$DP_ADMIN/metrics" |
    awk '/^replicapool_requests_seconds_count\{/ && /code="5xx"/ {s += $2} END {print s + 0}'
}
stall() { sleep 2; kill -STOP "${GRPC_PID[2]}"; sleep 3; kill -CONT "${GRPC_PID[2]}"; }

publish RoundRobin 3 warm "$HOSTHDR" "&appProtocol=kubernetes.io/h2c"
h2 $DP_PORT "$HOSTHDR" 5 /dev/null > /dev/null # warm-up
h2 $HAPROXY_PORT "$HOSTHDR" 5 /dev/null > /dev/null
RUN=0
run() { # target policy [query]
  local target=$1 policy=$2 query=${3:-} port=$HAPROXY_PORT host=$HOSTHDR
  RUN=$((RUN + 1))
  if [ "$target" = dataplane ]; then
    host="run$RUN.$HOSTHDR"; port=$DP_PORT
    publish "$policy" 3 "run$RUN" "$host" "&appProtocol=kubernetes.io/h2c${query:+&$query}"
  fi
  local label="$target/$policy${query:+ $query} load=$(loadavg | cut -d' ' -f1)"
  local before; before=$(dp_failed)
  stall & local sp=$!
  h2 "$port" "$host" 7 "$OUT/calls-$RUN.tsv" > "$OUT/h2load-$RUN.txt"
  wait $sp
  python3 - "$label" "$OUT/calls-$RUN.tsv" "$before" "$(dp_failed)" "$target" >> "$RES" <<'PY'
import json, sys
label, path, before, after, target = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = [l.split('\t') for l in open(path) if l.strip()]
ms = sorted(int(r[2]) / 1000 for r in rows if r[1] == '200')
q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
print(json.dumps({"label": label, "calls": len(rows), "failed": sum(r[1] != '200' for r in rows)
  + (after - before if target == 'dataplane' else 0), "p50": q(.5), "p90": q(.9), "p99": q(.99),
  "p999": q(.999), "max": ms[-1], "over1s": sum(m > 1000 for m in ms)}))
PY
  tail -1 "$RES" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("  %-75s calls %6d  p50 %6.2f  p90 %7.2f  p99 %7.2f  p99.9 %7.2f  max %7.1f ms  over 1 s %3d  failed %d" % (d["label"], d["calls"], d["p50"], d["p90"], d["p99"], d["p999"], d["max"], d["over1s"], d["failed"]))' | tee -a "$OUT/log.txt"
}
L=("dataplane RoundRobin" "dataplane RoundRobin hedgeMillis=$HEDGE_MS&grpcMethods=$SERVICE"
   "dataplane Adaptive hedgeMillis=$HEDGE_MS&grpcMethods=$SERVICE" "haproxy roundrobin")
for r in $(seq 1 "$ROUNDS"); do
  log "== closed loop, one connection x 16 calls, k2 of 3 stalled for 3 s (round $r)"
  for i in "${!L[@]}"; do
    set -- ${L[$(( (i + r - 1) % ${#L[@]} ))]}
    run "$@"
  done
done
curl -s "http://127.0.0.1:$DP_ADMIN/metrics" | grep '^replicapool_hedges_total' | tee -a "$OUT/log.txt"
