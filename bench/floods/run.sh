#!/usr/bin/env bash
# HTTP/2 floods against the data plane as users run it (the image's JVM flags, the manifest's memory
# limit, fed by the local run's operator with a pool applied by kubectl), each flood from an
# attacker of its own process (bench/h2flood, Go's HTTP/2 framer, started with `nice` as an
# attacker on another machine would not share this one's cores), beside a well-behaved HTTP/1.1
# client on its own connection (wrk, one request a millisecond): that client's p50 and p99 while
# each flood runs, against its quiet figures of the same round, rotating. Each attacker opens
# connection after connection for the whole time, the next as soon as the data plane closed the
# last; what the data plane counted as each close's reason is read from its /metrics.
# HAProxy (nbthread 1, which takes HTTP/2 with prior knowledge on the same port as HTTP/1.1) in
# front of the same members takes the same floods and the same client in the same rounds: what the
# machine allows a single-threaded proxy beside such a flood.
#   bench/floods/run.sh   ROUNDS=3 SECS=5 NICE=10 FLOODS="continuation hpack ping settings rapid-reset"
# EXTRA_FLAGS="..." adds JVM flags after the image's (e.g. "-Xlog:gc:file=/tmp/gc.log");
# CANDIDATE="..." adds a second data plane with the image's flags and these, as a target of its own;
# CANDIDATE2="..." a third; TARGETS="shipped haproxy" chooses among shipped, candidate, candidate2,
# haproxy.
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; SECS=${SECS:-5}; NICE=${NICE:-10}
FLOODS=${FLOODS:-continuation hpack ping settings rapid-reset}
source "$(dirname "$0")/../lib/as-shipped.sh"
need wrk go
RES="$OUT/floods.tsv"
log "machine: $(machine)"
log "shipped JVM flags: $SHIPPED_FLAGS; attacker: nice -n $NICE"
(cd "$BENCH/h2flood" && go build -o "$OUT/h2flood" .)
local_run_start
bench_pool_apply
# shellcheck disable=SC2086 # the flags are words
dp_start shipped $DP_PORT $DP_ADMIN $SHIPPED_FLAGS ${EXTRA_FLAGS:-}
TARGETS=${TARGETS:-shipped haproxy${CANDIDATE:+ candidate}${CANDIDATE2:+ candidate2}}
CAND_PORT=$((BACKEND_BASE + 4)); CAND_ADMIN=$((BACKEND_BASE + 5)) # backends use +1..+3 here
CAND2_PORT=$((BACKEND_BASE + 16)); CAND2_ADMIN=$((BACKEND_BASE + 17))
for t in candidate candidate2; do # each named in TARGETS: the image's flags, then $CANDIDATE / $CANDIDATE2
  [[ " $TARGETS " == *" $t "* ]] || continue
  flags=${t^^}; ports=CAND${t#candidate}
  log "$t JVM flags: $SHIPPED_FLAGS ${EXTRA_FLAGS:-} ${!flags:-}"
  port=${ports}_PORT; admin=${ports}_ADMIN
  # shellcheck disable=SC2086
  dp_start $t ${!port} ${!admin} $SHIPPED_FLAGS ${EXTRA_FLAGS:-} ${!flags:-}
done
"$KUBECTL" wait --for=condition=Ready rp/bench --timeout=60s >/dev/null
[[ " $TARGETS " != *" haproxy "* ]] || haproxy_start 1 roundrobin 3
declare -A PORT=([shipped]=$DP_PORT [candidate]=$CAND_PORT [candidate2]=$CAND2_PORT [haproxy]=$HAPROXY_PORT)
declare -A PID=([shipped]=$SHIPPED_PID [candidate]=${CANDIDATE_PID:-0} [candidate2]=${CANDIDATE2_PID:-0} [haproxy]=$HAPROXY_PID)
declare -A ADMIN=([shipped]=$DP_ADMIN [candidate]=$CAND_ADMIN [candidate2]=$CAND2_ADMIN)
# warm-up: the bystander's path and every flood's once, so the first round is not the JIT's
for t in $TARGETS; do
  wrk -t1 -c8 -d10s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$t]}/track/1" >/dev/null
  for f in $FLOODS; do
    nice -n "$NICE" "$OUT/h2flood" -addr 127.0.0.1:${PORT[$t]} -host $HOSTHDR -flood "$f" -duration 2s >/dev/null
  done
done
echo -e "round\ttarget\tcase\tp50_ms\tp99_ms\tmax_ms\tanswers\tnon2xx\tattacker\trss_mib\tload1" > "$RES"
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) printf "%.3f", v/1000; else if (v ~ /ms$/) printf "%.3f", v+0; else printf "%.3f", v*1000 }'; }
order() { # the targets rotated by round: each goes first in turn
  local -a t=($TARGETS); local n=${#t[@]} i
  for i in $(seq 0 $((n - 1))); do echo -n "${t[$(((i + $1) % n))]} "; done
}
for r in $(seq 1 "$ROUNDS"); do
  for t in $(order "$r"); do
    port=${PORT[$t]}
    for c in quiet $FLOODS; do
      apid=""
      if [ "$c" != quiet ]; then
        nice -n "$NICE" "$OUT/h2flood" -addr 127.0.0.1:$port -host $HOSTHDR -flood "$c" \
          -duration "$((SECS + 1))s" > "$OUT/attacker-$t-$c-$r.json" 2>&1 &
        apid=$!; sleep 0.5 # the flood is under way before the client's first request
      fi
      o=$(wrk -t1 -c1 -d"${SECS}s" --latency -s "$BENCH/floods/paced.lua" -H "Host: $HOSTHDR" \
        "http://127.0.0.1:$port/track/1" 2>&1)
      [ -z "$apid" ] || wait "$apid"
      p50=$(to_ms "$(echo "$o" | awk '$1=="50%"{print $2}')"); p99=$(to_ms "$(echo "$o" | awk '$1=="99%"{print $2}')")
      max=$(to_ms "$(echo "$o" | awk '$1=="Latency" && NF>=4 {print $4; exit}')")
      n=$(echo "$o" | awk '/requests in/{print $1}'); bad=$(echo "$o" | awk '/Non-2xx/{print $NF}')
      att=$([ "$c" = quiet ] && echo - || tr -d ' ' < "$OUT/attacker-$t-$c-$r.json")
      rss=$(awk '/VmRSS/{printf "%.0f", $2/1024}' /proc/${PID[$t]}/status)
      echo -e "$r\t$t\t$c\t$p50\t$p99\t$max\t$n\t${bad:-0}\t$att\t$rss\t$(loadavg | cut -d' ' -f1)" | tee -a "$RES"
    done
  done
done
for t in $TARGETS; do
  [ -z "${ADMIN[$t]:-}" ] || curl -s "http://127.0.0.1:${ADMIN[$t]}/metrics" \
    | grep -E '^replicapool_client_protocol_errors_total' | sed "s/^/$t: /" | tee -a "$OUT/log.txt"
done
python3 - "$RES" <<'PY' | tee -a "$OUT/log.txt"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
quiet = {(r['round'], r['target']): float(r['p99_ms']) for r in rows if r['case'] == 'quiet'}
print("target     case           p50 ms  p99 ms  p99 / the round's quiet p99  max ms  answers  RSS MiB  (medians of the rounds)")
for t in dict.fromkeys(r['target'] for r in rows):
    for c in dict.fromkeys(r['case'] for r in rows):
        rs = [r for r in rows if r['case'] == c and r['target'] == t]
        med = lambda k: st.median(float(r[k]) for r in rs)
        ratio = st.median(float(r['p99_ms']) / quiet[(r['round'], t)] for r in rs)
        print(f"{t:10s} {c:13s} {med('p50_ms'):7.3f} {med('p99_ms'):7.3f} {ratio:15.2f}x {med('max_ms'):20.2f}"
              f" {med('answers'):8.0f} {med('rss_mib'):8.0f}")
PY
