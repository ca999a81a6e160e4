#!/usr/bin/env bash
# The access log's cost on the static-nginx throughput bench: one data plane (one event loop)
# against three static nginx backends, as bench/proxy/fast.sh, once per mode: off, JSON lines to a
# file for every request, text lines to a file for every request (--access-log-pools all, so every
# request is formatted and written). Each mode gets a fresh data plane, a warm-up, then ROUNDS runs.
#   bench/proxy/accesslog.sh       ROUNDS=3 DURATION=5 CONNS=32 WARMUP=10
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; CONNS=${CONNS:-32}; WARMUP=${WARMUP:-10}
export DP_HEAP=${DP_HEAP:--Xms64m -Xmx256m}
RES="$OUT/accesslog.tsv"
log "machine: $(machine)"
static_backends 3
cptool
wrk_header
echo -e "mode\tround\tlines\tdropped" > "$OUT/accesslog-lines.tsv"

for mode in off json text; do
  LOGFILE="$OUT/access-$mode.log"
  case $mode in
    off) DP_ARGS="" ;;
    *) DP_ARGS="--access-log $LOGFILE --access-log-format $mode --access-log-pools all" ;;
  esac
  export DP_ARGS
  dataplane 1; publish RoundRobin 3
  for s in $(seq 1 "$WARMUP"); do
    wrk -t1 -c"$CONNS" -d1s -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1" >/dev/null
  done
  for r in $(seq 1 "$ROUNDS"); do
    wrk_round "$mode" "$DP_PORT" "$DP_PID" "$r"
    lines=$([ -f "$LOGFILE" ] && wc -l < "$LOGFILE" || echo 0)
    dropped=$(curl -s "http://127.0.0.1:$DP_ADMIN/metrics" | awk '/^replicapool_access_log_dropped_total/{print $2}')
    echo -e "$mode\t$r\t$lines\t${dropped:-0}" >> "$OUT/accesslog-lines.tsv"
  done
  stop_pid "$DP_PID"
  rm -f "$LOGFILE" # a few hundred MB of lines
done
python3 - "$RES" "$OUT/accesslog-lines.tsv" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
counts = list(csv.DictReader(open(sys.argv[2]), delimiter='\t'))
base = None
for mode in ("off", "json", "text"):
    r = [x for x in rows if x["target"] == mode]
    c = [x for x in counts if x["mode"] == mode]
    rps = st.median(float(x["req_s"]) for x in r)
    cpu = st.median(float(x["cpu_us_per_req"]) for x in r)
    base = base or (rps, cpu)
    print(f"{mode:5s} median req/s {rps:9.0f} ({rps / base[0]:.2f}x off)  cpu µs/req {cpu:5.1f} (+{cpu - base[1]:.1f})  dropped {c[-1]['dropped']}")
PY
