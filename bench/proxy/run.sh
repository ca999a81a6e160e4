#!/usr/bin/env bash
# Item 1 of issue 6: throughput (wrk, closed loop) and latency at half of saturation (LoadGen, open
# loop) through the data plane (RoundRobin), HAProxy (roundrobin) and nginx (round-robin) to the
# same 3 sample replicas, and directly to one of them; 1 and 2 proxy threads; alternating order.
#   bench/proxy/run.sh            ROUNDS=3 DURATION=5 THREADS="1 2" CONNS=32
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; THREADS=${THREADS:-"1 2"}; CONNS=${CONNS:-32}
RES="$OUT/proxy.tsv"; LAT="$OUT/proxy-latency.jsonl"
log "machine: $(machine)"
backends 3
cptool
echo -e "threads\tround\ttarget\treq_s\tp50_ms\tp99_ms\tload1" > "$RES"

wrk_run() { # target port round threads
  local o; o=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -H "Host: $HOSTHDR" "http://127.0.0.1:$2/track/1" 2>&1)
  local rps p50 p99
  rps=$(echo "$o" | awk '/Requests\/sec/{print $2}')
  p50=$(echo "$o" | awk '$1=="50%"{print $2}'); p99=$(echo "$o" | awk '$1=="99%"{print $2}')
  local errs; errs=$(echo "$o" | { grep -E "Non-2xx|Socket errors" || true; } | tr '\n' ' ')
  echo -e "$4\t$3\t$1\t$rps\t$p50\t$p99\t$(loadavg | cut -d' ' -f1)" | tee -a "$RES"
  [ -z "$errs" ] || log "  $1: $errs"
}

for t in $THREADS; do
  log "== $t thread(s): data plane --instances $t, haproxy nbthread $t, nginx worker_processes $t"
  dataplane "$t"; publish RoundRobin 3
  haproxy_start "$t" roundrobin 3
  nginx_start "$t" "" 3
  declare -A PORT=([dataplane]=$DP_PORT [haproxy]=$HAPROXY_PORT [nginx]=$NGINX_PORT [direct]=$((BACKEND_BASE + 1)))
  TARGETS=(dataplane haproxy nginx direct)
  # Warm-up (not recorded): C2 needs ~15 s of load to compile the data plane's hot path on this
  # loaded machine (the first 5 s run at a fifth of the final rate); 3 s for the others.
  wrk -t1 -c"$CONNS" -d15s -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1" >/dev/null
  for x in "${TARGETS[@]}"; do wrk -t1 -c"$CONNS" -d3s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$x]}/track/1" >/dev/null; done
  for r in $(seq 1 "$ROUNDS"); do
    for i in 0 1 2 3; do
      x=${TARGETS[$(( (i + r - 1) % 4 ))]}
      wrk_run "$x" "${PORT[$x]}" "$r" "$t"
    done
  done
  # Half of the data plane's median saturation, the same rate for every target.
  sat=$(awk -v t="$t" -F'\t' '$1==t && $3=="dataplane"{print $4}' "$RES" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  half=$(awk -v s="$sat" 'BEGIN{printf "%d", s/2}')
  log "   open-loop latency at $half req/s (half of the data plane's median $sat req/s)"
  for r in 1 2; do
    for i in 0 1 2 3; do
      x=${TARGETS[$(( (i + r - 1) % 4 ))]}
      loadgen --port "${PORT[$x]}" --rate "$half" --duration 6 --warmup 3 --conns 64 \
        --label "threads=$t round=$r $x load=$(loadavg | cut -d' ' -f1)" --out "$LAT"
    done
  done
  stop_pid "$DP_PID"; stop_pid "$HAPROXY_PID"; stop_pid "$NGINX_PID"
done
log "summary (median req/s per target and ratio to the data plane):"
python3 - "$RES" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
for t in sorted({r['threads'] for r in rows}):
    med = {x: st.median(float(r['req_s']) for r in rows if r['threads']==t and r['target']==x) for x in ['dataplane','haproxy','nginx','direct']}
    print(f"threads={t} " + " ".join(f"{x}={v:,.0f}" for x, v in med.items()) +
          f"  dp/haproxy={med['dataplane']/med['haproxy']:.2f} dp/nginx={med['dataplane']/med['nginx']:.2f}")
PY
