#!/usr/bin/env bash
# A gRPC member killed under load: k2 of 3 sample replicas (grpc-java, h2c) SIGKILLed 1 s into a
# run of 30,000 unary grpc.health.v1.Health/Check calls from ghz over ONE client connection with 8
# in flight, through the data plane (RoundRobin; by default, then with the pool naming the service
# idempotent: routing.idempotent.grpcMethods) and through HAProxy (proto h2, roundrobin). k2 is
# started again between runs. What every call got, by gRPC status, from ghz's own report.
#   bench/faults/kill-grpc.sh     ROUNDS=1 CALLS=30000
# As stall-grpc.sh: the data plane gets fixed snapshots from CpTool, so no operator marks k2 down;
# the data plane learns it from the reset streams and refused connections alone. Needs ghz
# (go install github.com/bojand/ghz/cmd/ghz@v0.120.0, from the Go module proxy).
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-1}; CALLS=${CALLS:-30000}; T=${THREADS:-2}
GHZ=${GHZ:-$(command -v ghz || echo "$HOME/go/bin/ghz")}
[ -x "$GHZ" ] || { echo "ghz not found: go install github.com/bojand/ghz/cmd/ghz@v0.120.0" >&2; exit 1; }
RES="$OUT/kill-grpc.jsonl"
log "machine: $(machine); $("$GHZ" --version)"
declare -A GRPC_PID
replica() { # i
  "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.replica.SampleReplicaMain --name "k$1" --host 127.0.0.1 --port 0 \
    --grpc-port $((BACKEND_BASE + $1)) --threads 1 >>"$OUT/backend-k$1.log" 2>&1 &
  PIDS+=($!); GRPC_PID[$1]=$!
}
for i in 1 2 3; do replica "$i"; done
for i in 1 2 3; do wait_port $((BACKEND_BASE + i)); done
cptool
dataplane "$T"
# HAProxy as its users run it against members that may die: a connect check every second, and a
# call whose connection is refused goes to another server (without both, each call to the dead k2
# waits out 3 connect retries and the run takes an hour).
HAPROXY_GRPC_SERVER="check inter 1s fall 1 rise 2" \
  HAPROXY_GRPC_BACKEND=$'  option redispatch\n  retries 2' haproxy_grpc_start $T
SERVICE=/grpc.health.v1.Health/*
ghz_run() { # port authority calls report
  "$GHZ" --insecure --proto "$BENCH/faults/health.proto" --call grpc.health.v1.Health/Check \
    --authority "$2" --connections 1 -c 8 -n "$3" -t 10s -O json -o "$4" "127.0.0.1:$1" 2>&1
}
publish RoundRobin 3 warm "$HOSTHDR" "&appProtocol=kubernetes.io/h2c"
ghz_run $DP_PORT "$HOSTHDR" 3000 /dev/null > /dev/null # warm-up
ghz_run $HAPROXY_PORT "$HOSTHDR" 3000 /dev/null > /dev/null
RUN=0
run() { # target policy [query]
  local target=$1 policy=$2 query=${3:-} port=$HAPROXY_PORT host=$HOSTHDR
  RUN=$((RUN + 1))
  if [ "$target" = dataplane ]; then
    host="run$RUN.$HOSTHDR"; port=$DP_PORT
    publish "$policy" 3 "run$RUN" "$host" "&appProtocol=kubernetes.io/h2c${query:+&$query}"
  fi
  local label="$target/$policy${query:+ $query} load=$(loadavg | cut -d' ' -f1)"
  (sleep 1; kill -KILL "${GRPC_PID[2]}") & local kp=$!
  ghz_run "$port" "$host" "$CALLS" "$OUT/ghz-$RUN.json" > "$OUT/ghz-$RUN.txt" || true
  wait $kp
  python3 - "$label" "$OUT/ghz-$RUN.json" >> "$RES" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
lat = {d["percentage"]: d["latency"] / 1e6 for d in r.get("latencyDistribution") or []}
print(json.dumps({"label": label, "calls": r["count"], "statuses": r.get("statusCodeDistribution"),
  "errors": r.get("errorDistribution") or {}, "p99_ms": lat.get(99), "rps": r.get("rps")}))
PY
  tail -1 "$RES" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("  %-70s calls %6d  p99 %7.2f ms  statuses %s  errors %s" % (d["label"], d["calls"], d["p99_ms"] or 0, d["statuses"], d["errors"]))' | tee -a "$OUT/log.txt"
  replica 2; wait_port $((BACKEND_BASE + 2)) # back for the next run
}
L=("dataplane RoundRobin" "dataplane RoundRobin grpcMethods=$SERVICE" "haproxy roundrobin")
for r in $(seq 1 "$ROUNDS"); do
  log "== $CALLS calls, one connection x 8 in flight, k2 of 3 SIGKILLed after 1 s (round $r)"
  for i in "${!L[@]}"; do
    set -- ${L[$(( (i + r - 1) % ${#L[@]} ))]}
    run "$@"
  done
done
curl -s "http://127.0.0.1:$DP_ADMIN/metrics" | grep '^replicapool_retries_total' | tee -a "$OUT/log.txt"
