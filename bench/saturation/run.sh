#!/usr/bin/env bash
# Saturation: three sample replicas of equal, fixed capacity (--workers 4 --service-ms 10: 400
# req/s each, an unbounded FIFO queue beyond), each reporting its load (ORCA endpoint-load-metrics
# on every answer; HAProxy's agent-check on a port of its own). k1 also serves OTHER_RATE req/s
# from a client that does not pass through any proxy. Open-loop load through each target at 50, 75
# and 90 % of the pool's capacity (the other client counted in, so the proxy sends LOAD% x 1200 -
# OTHER_RATE): the proxy's p50/p99/max and success, the busy member's share of the proxy's answers,
# each member's utilization over the run (served x service time / workers), the other client's p99.
#   bench/saturation/run.sh     LOADS="50 75 90" DURATION=20 OTHER_RATE=300 ROUNDS=1 TARGETS="dataplane Adaptive,..."
# Targets: the data plane RoundRobin, Adaptive with the reports off (the members keep their load
# and say nothing: /admin/capacity?report=false), Adaptive with them; HAProxy leastconn with
# agent-check (weight = the member's idle share); nginx least_conn. The data plane gets fixed
# snapshots from CpTool, so only what it reads per request moves its choice.
source "$(dirname "$0")/../lib/common.sh"
LOADS=${LOADS:-50 75 90}; DURATION=${DURATION:-20}; WARMUP=${WARMUP:-3}; OTHER_RATE=${OTHER_RATE:-300}
ROUNDS=${ROUNDS:-1}; WORKERS=${WORKERS:-4}; SERVICE_MS=${SERVICE_MS:-10}; T=${THREADS:-1}
CAPACITY=$((3 * WORKERS * 1000 / SERVICE_MS))
AGENT_BASE=$((BACKEND_BASE + 11)) # +12..+14, the block's spare ports
RES="$OUT/saturation.jsonl"
log "machine: $(machine)"
log "members: 3 x $WORKERS workers x $SERVICE_MS ms = $CAPACITY req/s; k1 also serves $OTHER_RATE req/s directly"
for i in 1 2 3; do
  "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.replica.SampleReplicaMain --name "k$i" --host 127.0.0.1 --port $((BACKEND_BASE + i)) \
    --threads 1 --workers "$WORKERS" --service-ms "$SERVICE_MS" --agent-port $((AGENT_BASE + i)) \
    >"$OUT/backend-k$i.log" 2>&1 &
  PIDS+=($!)
done
for i in 1 2 3; do wait_port $((BACKEND_BASE + i)); wait_port $((AGENT_BASE + i)); done
cptool
dataplane "$T"
publish RoundRobin 3 warm
log "warming the data plane up (8 s at 600 req/s), then k1 with the other client's load alone (5 s)"
loadgen --port $DP_PORT --rate 600 --duration 8 --label warmup >/dev/null
# The first run after a cold other client had k1's own tail in its "other p99" whatever balanced
# (2026-12-07: 176-674 ms in each first run, mostly 14-300 in later ones). Alone, k1 is at 75 %.
loadgen --port $((BACKEND_BASE + 1)) --rate "$OTHER_RATE" --duration 5 --conns 64 --label warmup-other >/dev/null

reports() { for i in 1 2 3; do admin "$i" "capacity?report=$1"; done; }
served() { # k1 k2 k3 served so far, space separated
  for i in 1 2 3; do
    echo "$(curl -s "http://127.0.0.1:$((BACKEND_BASE + i))/admin/state" | sed -n 's/.*"served":\([0-9]*\).*/\1/p')"
  done | xargs
}
haproxy_agent_start() { # leastconn, weights from each member's agent-check every 200 ms
  cat > "$OUT/haproxy-agent.cfg" <<CFG
global
  nbthread $T
  maxconn 8000
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  http-reuse safe
frontend fe
  bind 127.0.0.1:$HAPROXY_PORT
  default_backend be
backend be
  balance leastconn
  option httpchk GET /healthz
$(for i in 1 2 3; do echo "  server k$i 127.0.0.1:$((BACKEND_BASE + i)) weight 100 check inter 1s agent-check agent-port $((AGENT_BASE + i)) agent-inter 200ms maxconn 1000"; done)
CFG
  haproxy -f "$OUT/haproxy-agent.cfg" -db >"$OUT/haproxy.log" 2>&1 &
  HAPROXY_PID=$!; PIDS+=($HAPROXY_PID)
  wait_port $HAPROXY_PORT
}
RUN=0
run() { # load% target policy
  local load=$1 target=$2 policy=$3 port host=$HOSTHDR
  local rate=$((CAPACITY * load / 100 - OTHER_RATE))
  RUN=$((RUN + 1))
  reports true
  case $target in
    dataplane)
      [ "$policy" = Adaptive-noreport ] && reports false
      host="run$RUN.$HOSTHDR"; port=$DP_PORT
      publish "${policy%-noreport}" 3 "run$RUN" "$host" ;;
    haproxy) haproxy_agent_start; port=$HAPROXY_PORT; sleep 1 ;; # its first agent checks
    nginx) nginx_start "$T" "least_conn;" 3; port=$NGINX_PORT ;;
  esac
  local label="$load% $target/$policy load=$(loadavg | cut -d' ' -f1)"
  local before; before=$(served)
  loadgen --port $((BACKEND_BASE + 1)) --rate "$OTHER_RATE" --duration "$DURATION" --warmup "$WARMUP" \
    --conns 64 --label "other $label" --out "$OUT/other.tmp" > /dev/null &
  local other=$!
  loadgen --port "$port" --host-header "$host" --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" \
    --conns 256 --label "$label" --out "$OUT/proxy.tmp" > /dev/null
  wait $other
  local after; after=$(served)
  python3 - "$(tail -1 "$OUT/proxy.tmp")" "$(tail -1 "$OUT/other.tmp")" "$before" "$after" \
    "$((DURATION + WARMUP))" "$WORKERS" "$SERVICE_MS" "$load" "$target/$policy" >> "$RES" <<'PY'
import json, sys
proxy, other = json.loads(sys.argv[1]), json.loads(sys.argv[2])
before, after = [int(x) for x in sys.argv[3].split()], [int(x) for x in sys.argv[4].split()]
secs, workers, service = float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
util = [round((a - b) * service / 1000 / (workers * secs), 3) for a, b in zip(after, before)]
answered = sum(proxy["replicas"].values()) or 1
print(json.dumps({"load": int(sys.argv[8]), "target": sys.argv[9], "label": proxy["label"],
  "rate": proxy["rate"], "sent": proxy["sent"], "ok": proxy["ok"], "failed": proxy["failed"],
  "p50": proxy["p50"], "p99": proxy["p99"], "max": proxy["max"],
  "busyShare": round(proxy["replicas"].get("k1", 0) / answered, 3), "utilization": util,
  "otherP99": other["p99"], "otherFailed": other["failed"]}))
PY
  tail -1 "$RES" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("  %-48s p50 %7.1f  p99 %8.1f  max %8.1f ms  ok %5.1f%%  busy share %4.1f%%  util %s  other p99 %8.1f ms" % (d["label"], d["p50"], d["p99"], d["max"], 100.0*d["ok"]/max(1,d["sent"]), 100*d["busyShare"], "/".join("%d%%" % round(100*u) for u in d["utilization"]), d["otherP99"]))' | tee -a "$OUT/log.txt"
  case $target in haproxy) stop_pid "$HAPROXY_PID" ;; nginx) stop_pid "$NGINX_PID" ;; esac
  # let every queue drain before the next run
  local end=$((SECONDS + 30))
  until [ "$(served)" = "$(sleep 0.5; served)" ] || [ $SECONDS -gt $end ]; do :; done
}
L=("dataplane RoundRobin" "dataplane Adaptive-noreport" "dataplane Adaptive" "haproxy leastconn-agent" "nginx least_conn")
if [ -n "${TARGETS:-}" ]; then IFS=, read -r -a L <<< "$TARGETS"; fi # e.g. TARGETS="dataplane Adaptive,nginx least_conn"
for r in $(seq 1 "$ROUNDS"); do
  for load in $LOADS; do
    log "== $load % of capacity (round $r)"
    for i in "${!L[@]}"; do
      set -- ${L[$(( (i + r - 1) % ${#L[@]} ))]}
      run "$load" "$@"
    done
  done
done
log "results: $RES"
