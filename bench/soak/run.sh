#!/usr/bin/env bash
# A long run of the data plane as users run it (bench/lib/as-shipped.sh: the image's JVM flags and
# memory limit, a pool applied with kubectl in a namespace of its own, fed by an operator of its
# own started as its image starts it, beside a local run's API server): a steady paced load,
# the pool's membership changed every CHURN_SECONDS (3 members, then 2, then 3: a snapshot push and
# a hand-over each time), every KILL_SECONDS one member (k1, k2, k3 in turn, each an nginx of its
# own) SIGKILLed and started again RESTART_SECONDS later, and every SAMPLE_SECONDS the data plane's
# and the operator's RSS, old generation, threads and open files; every GC_SECONDS the old
# generation again after a forced full collection (jcmd GC.run): the live data, which tells a leak
# from garbage not yet collected; every RECONNECT_SECONDS the data plane's control-plane connection
# cut from outside (ss -K: both ends get a reset, as from a firewall or a dropped NAT entry), so
# it dials again and is sent the whole state; at OPERATOR_RESTART_AT seconds the operator stopped
# (SIGTERM, as a rollout does) and started again: the data plane keeps its last state meanwhile and
# dials the new one. The operator figures are that process's. At the end: every request's status
# (wrk), and for
# each figure its median over the first and the last third of the run after its warm-up (the first
# third, at most 20 minutes) and the growth between them (bench/soak/growth.py, which reads a past
# run's soak.tsv again). Nothing should grow once warm: a leak shows as a last third above the first.
# KILL_SECONDS=0, GC_SECONDS=0, RECONNECT_SECONDS=0 or OPERATOR_RESTART_AT=0: none.
#   bench/soak/run.sh         MINUTES=60 CONNS=8 DELAY_MS=4 CHURN_SECONDS=30 SAMPLE_SECONDS=10
#                             KILL_SECONDS=60 RESTART_SECONDS=5 GC_SECONDS=60 RECONNECT_SECONDS=300
#                             OPERATOR_RESTART_AT=300
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
MINUTES=${MINUTES:-60}; CONNS=${CONNS:-8}; DELAY_MS=${DELAY_MS:-4}
CHURN_SECONDS=${CHURN_SECONDS:-30}; SAMPLE_SECONDS=${SAMPLE_SECONDS:-10}
KILL_SECONDS=${KILL_SECONDS:-60}; RESTART_SECONDS=${RESTART_SECONDS:-5}; GC_SECONDS=${GC_SECONDS:-60}
RECONNECT_SECONDS=${RECONNECT_SECONDS:-300}; OPERATOR_RESTART_AT=${OPERATOR_RESTART_AT:-300}
STATIC_EACH=1 # each member an nginx of its own, to be killed alone
OWN_OPERATOR=1 # the operator can be restarted alone
source "$(dirname "$0")/../lib/as-shipped.sh"
log "machine: $(machine)"
log "soak: $MINUTES min, $CONNS connections each waiting ${DELAY_MS} ms between requests; membership change every ${CHURN_SECONDS} s; a member killed every ${KILL_SECONDS} s, back after ${RESTART_SECONDS} s; forced GC every ${GC_SECONDS} s; control-plane connection cut every ${RECONNECT_SECONDS} s; the operator restarted at ${OPERATOR_RESTART_AT} s"
local_run_start
bench_pool_apply
# shellcheck disable=SC2086 # the flags are words
dp_start shipped $DP_PORT $DP_ADMIN $SHIPPED_FLAGS

echo "function delay() return $DELAY_MS end" > "$OUT/pace.lua"
wrk -t1 -c"$CONNS" -d"${MINUTES}m" -s "$OUT/pace.lua" --latency -H "Host: $HOSTHDR" \
  "http://127.0.0.1:$DP_PORT/track/1" > "$OUT/wrk.txt" 2>&1 &
WRK_PID=$!; PIDS+=($WRK_PID)

# sample PID: rss_mib threads fds old_gen_mib (old generation used, from jstat: what survives).
sample() {
  local rss threads fds old
  rss=$(awk '/VmRSS/{printf "%.0f", $2/1024}' "/proc/$1/status")
  threads=$(awk '/Threads/{print $2}' "/proc/$1/status")
  fds=$(ls "/proc/$1/fd" | wc -l)
  old=$(jstat -gc "$1" | awk 'NR==2{for(i=1;i<=NF;i++) if(h[i]=="OU") printf "%.1f", $i/1024} NR==1{for(i=1;i<=NF;i++) h[i]=$i}')
  echo -e "$rss\t$threads\t$fds\t$old"
}
live() { # PID: the old generation after a forced full collection, MiB
  jcmd "$1" GC.run >/dev/null 2>&1
  jstat -gc "$1" | awk 'NR==2{for(i=1;i<=NF;i++) if(h[i]=="OU") printf "%.1f", $i/1024} NR==1{for(i=1;i<=NF;i++) h[i]=$i}'
}
member_pid() { cat "$OUT/static-k$1/nginx.pid" 2>/dev/null || true; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# kill_member I: nginx k_I SIGKILLed, its master and its worker (a worker outlives its master and
# would go on serving the port), then started again RESTART_SECONDS later (run in a subshell).
# The master dies first: killed after its worker, a master that runs before its own SIGKILL lands
# reaps the worker and starts another, which outlives it (3 kills in 150 on a busy machine; the
# 2026-12-06 hour lost k1 that way at minute 16, and every later kill of k1 found no pid file).
# Each kill is checked and written to kills.tsv: the port closed after the kill, open again after,
# and for a port still open, the processes listening on it.
kill_member() {
  set +e
  local pid workers port=$((BACKEND_BASE + $1)) down=no up=no holders=""
  pid=$(member_pid "$1")
  if [ -n "$pid" ]; then
    workers=$(pgrep -P "$pid")
    kill -9 "$pid" 2>/dev/null
    # shellcheck disable=SC2086 # the worker pids are words
    [ -n "$workers" ] && kill -9 $workers 2>/dev/null
  fi
  for _ in $(seq 1 40); do port_open "$port" || { down=yes; break; }; sleep 0.05; done
  [ "$down" = yes ] || holders=$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | tr '\n' ' ')
  sleep "$RESTART_SECONDS"
  rm -f "$OUT/static-k$1/nginx.pid"
  static_member "$1" >/dev/null 2>&1
  port_open "$port" && up=yes
  echo -e "$((SECONDS - start))\tk$1\t$down\t$up\t${pid:-no pid file}\t$holders" >> "$OUT/kills.tsv"
}
cut_control_plane() { # the data plane's connection to the operator, reset at both ends
  ss -K -t state established dst 127.0.0.1 dport = :"$OP_PORT" >/dev/null 2>&1 || true
}
restart_operator() { # SIGTERM, its exit awaited (its Lease released), then a new one until ready
  kill "$OPERATOR_PID" 2>/dev/null; timeout 60 tail --pid="$OPERATOR_PID" -f /dev/null
  op_start
}
stop_members() { set +e; for i in 1 2 3; do p=$(member_pid "$i"); [ -n "$p" ] && kill "$p" 2>/dev/null; done; return 0; }
trap 'stop_members; stop_local; cleanup' EXIT
endpoints() { # N: the pool's members are the first N static backends
  local list=""; for i in $(seq 1 "$1"); do list="$list${list:+,}{\"host\":\"127.0.0.1\",\"port\":$((BACKEND_BASE + i))}"; done
  "$KUBECTL" -n "$BENCH_NS" patch rp bench --type=merge -p "{\"spec\":{\"endpoints\":[$list]}}" >/dev/null
}
echo -e "t_s\tdp_rss_mib\tdp_threads\tdp_fds\tdp_old_mib\top_rss_mib\top_threads\top_fds\top_old_mib\tsnapshot\tdp_live_mib\top_live_mib\tkilled\tcut\trestarted" > "$OUT/soak.tsv"
start=$SECONDS; next_churn=$CHURN_SECONDS; members=3
next_kill=$KILL_SECONDS; next_gc=$GC_SECONDS; victim=0; LAST_KILL=""; next_cut=$RECONNECT_SECONDS
while kill -0 "$WRK_PID" 2>/dev/null; do
  t=$((SECONDS - start))
  if [ "$t" -ge "$next_churn" ]; then
    members=$((members == 3 ? 2 : 3)); endpoints "$members"; next_churn=$((next_churn + CHURN_SECONDS))
  fi
  killed=""
  if [ "$KILL_SECONDS" -gt 0 ] && [ "$t" -ge "$next_kill" ]; then
    victim=$((victim % 3 + 1)); killed=k$victim; next_kill=$((next_kill + KILL_SECONDS))
    kill_member "$victim" & LAST_KILL=$!
  fi
  restarted=""
  if [ "$OPERATOR_RESTART_AT" -gt 0 ] && [ "$t" -ge "$OPERATOR_RESTART_AT" ] && [ -z "${RESTARTED:-}" ]; then
    restart_operator; restarted=operator; RESTARTED=1
  fi
  cut=""
  if [ "$RECONNECT_SECONDS" -gt 0 ] && [ "$t" -ge "$next_cut" ]; then
    cut_control_plane; cut=cut; next_cut=$((next_cut + RECONNECT_SECONDS))
  fi
  dp_live=""; op_live=""
  if [ "$GC_SECONDS" -gt 0 ] && [ "$t" -ge "$next_gc" ]; then
    dp_live=$(live "$SHIPPED_PID"); op_live=$(live "$OPERATOR_PID"); next_gc=$((next_gc + GC_SECONDS))
  fi
  version=$(curl -s "http://127.0.0.1:$DP_ADMIN/metrics" | awk '/^replicapool_snapshot_version/ && !v {v = $2} END {print v}')
  echo -e "$t\t$(sample "$SHIPPED_PID")\t$(sample "$OPERATOR_PID")\t${version:-}\t$dp_live\t$op_live\t$killed\t$cut\t$restarted" >> "$OUT/soak.tsv"
  sleep "$SAMPLE_SECONDS"
done
[ -z "$LAST_KILL" ] || wait "$LAST_KILL" 2>/dev/null || true # the last member's restart
cat "$OUT/wrk.txt" | tee -a "$OUT/log.txt"
curl -s "http://127.0.0.1:$DP_ADMIN/metrics" |
  grep -E '^replicapool_(requests_seconds_count|retries_total|ejections_total)' | tee -a "$OUT/log.txt"
touch "$OUT/kills.tsv"
python3 "$(dirname "$0")/growth.py" "$OUT/soak.tsv" "$OUT/kills.tsv" | tee -a "$OUT/log.txt"
# Each cut must show as a closed stream and a new connection in the data plane's log.
echo "control-plane streams closed: $(grep -c 'control-plane stream closed' "$OUT/dataplane-shipped.log")," \
  "connected: $(grep -c 'connected to control plane' "$OUT/dataplane-shipped.log")" | tee -a "$OUT/log.txt"
