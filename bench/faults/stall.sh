#!/usr/bin/env bash
# A member that accepts requests and then stalls: k2 of 3 sample replicas SIGSTOPped for 3 s
# (then SIGCONT) under load, once open loop (LoadGen, RATE req/s for 7 s after 2 s of warm-up)
# and once closed loop (wrk -t1 -c16 -d7s --timeout 10s), through the data plane with and without its request
# policies (hedging, a per-try timeout), HAProxy (check inter 200ms) and nginx (passive). Also a
# run without the stall for each hedging setting: its p99 and extra member load on a healthy pool.
#   bench/faults/stall.sh          ROUNDS=1 RATE=2000 HEDGE_MS=20 PER_TRY_MS=100 ONLY=regex LOOPS="closed open"
# The data plane gets no operator here (CpTool publishes fixed snapshots): no probe marks the
# stalled member down, only what the data plane sees itself. Two threads per proxy.
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-1}; RATE=${RATE:-2000}; T=${THREADS:-2}
HEDGE_MS=${HEDGE_MS:-20}; PER_TRY_MS=${PER_TRY_MS:-100}
export HAPROXY_INTER=200ms
RES="$OUT/stall.jsonl"
log "machine: $(machine)"
backends 3
cptool
dataplane "$T"
publish RoundRobin 3 warm
log "warming the data plane up (10 s at $RATE req/s)"
loadgen --port $DP_PORT --host-header $HOSTHDR --rate "$RATE" --duration 10 --label warmup >/dev/null
RUN=0

proxy_up() { # target policy [query] -> sets PORT_ and HOST_
  RUN=$((RUN + 1)); HOST_=$HOSTHDR
  case $1 in
    dataplane) HOST_="run$RUN.$HOSTHDR"; publish "$2" 3 "run$RUN" "$HOST_" "${3:+&$3}"; PORT_=$DP_PORT ;;
    haproxy) haproxy_start "$T" "$2" 3; PORT_=$HAPROXY_PORT; sleep 1 ;;
    nginx) nginx_start "$T" "" 3; PORT_=$NGINX_PORT ;;
  esac
}
proxy_down() { case $1 in haproxy) stop_pid "$HAPROXY_PID" ;; nginx) stop_pid "$NGINX_PID" ;; esac; }
served() { # answers the three replicas have served so far
  local t=0 i n
  for i in 1 2 3; do
    n=$(curl -s "http://127.0.0.1:$((BACKEND_BASE + i))/admin/state" | sed -n 's/.*"served":\([0-9]*\).*/\1/p')
    t=$((t + ${n:-0}))
  done
  echo $t
}
stall() { # after $1 s (2 s into the measured run), k2 stops for 3 s
  sleep "$1"
  local pid=${BACKEND_PID[$((BACKEND_BASE + 2))]}
  kill -STOP "$pid"; sleep 3; kill -CONT "$pid"
}

run() { # loop(open|closed) fault(stall|none) target policy [query]
  local loop=$1 fault=$2 target=$3 policy=$4 query=${5:-}
  for k in 1 2 3; do admin $k reset; done
  proxy_up "$target" "$policy" "$query"
  local label="$loop $fault $target/$policy${query:+ $query} load=$(loadavg | cut -d' ' -f1)"
  local before; before=$(served)
  local sp=""
  if [ "$loop" = open ]; then
    # 2 s of warm-up, not counted: the load's 256 connections open in them
    loadgen --port "$PORT_" --host-header "$HOST_" --rate "$RATE" --duration 7 --warmup 2 --conns 256 \
      --label "$label" --out "$OUT/open.tmp" > /dev/null &
    local lp=$!
    [ "$fault" = stall ] && { stall 4 & sp=$!; }
    wait $lp
    [ -n "$sp" ] && wait $sp
    local line; line=$(tail -1 "$OUT/open.tmp")
    local n; n=$(echo "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent"])')
    # the members also served the warm-up's requests
    local extra; extra=$(python3 -c "print(round(($(served) - $before) / ($n + 2 * $RATE) - 1, 4))")
    echo "$line" | python3 -c "import json,sys; d=json.load(sys.stdin); d['extraMemberLoad']=$extra; print(json.dumps(d))" >> "$RES"
  else
    local o
    [ "$fault" = stall ] && { stall 2 & sp=$!; }
    o=$(wrk -t1 -c16 -d7s --timeout 10s -s "$BENCH/faults/stall.lua" -H "Host: $HOST_" "http://127.0.0.1:$PORT_/track/1" | grep '^RESULT')
    [ -n "$sp" ] && wait $sp
    python3 - "$label" "$o" "$before" "$(served)" >> "$RES" <<'PY'
import json, sys
label, o, before, after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = dict(kv.split("=") for kv in o.split()[1:])
n = int(d["requests"])
print(json.dumps({"label": label, "sent": n, "failed": int(d["errors"]) + int(d["non2xx"]),
  "p50": float(d["p50"]), "p90": float(d["p90"]), "p99": float(d["p99"]), "p999": float(d["p999"]),
  "max": float(d["max"]), "extraMemberLoad": round((after - before) / n - 1, 4)}))
PY
  fi
  tail -1 "$RES" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("  %-70s p50 %7.2f  p90 %8.2f  p99 %8.2f  p99.9 %8.2f ms  failed %d  extra load %+.1f%%" % (d["label"], d["p50"], d["p90"], d["p99"], d["p999"], d["failed"], 100*d["extraMemberLoad"]))' | tee -a "$OUT/log.txt"
  proxy_down "$target"
}

L=("dataplane RoundRobin" "dataplane Adaptive"
   "dataplane RoundRobin hedgeMillis=$HEDGE_MS" "dataplane Adaptive hedgeMillis=$HEDGE_MS"
   "dataplane Adaptive hedgePercentile=95" "dataplane RoundRobin perTryMillis=$PER_TRY_MS"
   "haproxy roundrobin" "nginx -")
for r in $(seq 1 "$ROUNDS"); do
  for loop in ${LOOPS:-closed open}; do
    log "== $loop loop, k2 of 3 stalled for 3 s (round $r)"
    for i in "${!L[@]}"; do
      set -- ${L[$(( (i + r - 1) % ${#L[@]} ))]}
      [[ "$*" =~ ${ONLY:-.} ]] || continue
      run "$loop" stall "$@"
    done
    log "== $loop loop, nothing stalled (round $r)"
    for t in "dataplane RoundRobin" "dataplane RoundRobin hedgeMillis=$HEDGE_MS" "dataplane Adaptive hedgePercentile=95"; do
      set -- $t
      [[ "$*" =~ ${ONLY:-.} ]] || continue
      run "$loop" none "$@"
    done
  done
done
log "results: $RES"
