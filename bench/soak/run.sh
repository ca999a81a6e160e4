#!/usr/bin/env bash
# A long run of the data plane as users run it (bench/lib/as-shipped.sh: the image's JVM flags and
# memory limit, fed by a local run's operator, a pool applied with kubectl): a steady paced load,
# the pool's membership changed every CHURN_SECONDS (3 members, then 2, then 3: a snapshot push and
# a hand-over each time), and every SAMPLE_SECONDS the data plane's and the operator's RSS, old
# generation, threads and open files. At the end: every request's status (wrk), and for each figure
# its median over the first and the last third of the run and the growth between them. Nothing
# should grow once warm: a leak shows as a last third above the first.
#   bench/soak/run.sh         MINUTES=60 CONNS=8 DELAY_MS=4 CHURN_SECONDS=30 SAMPLE_SECONDS=10
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
MINUTES=${MINUTES:-60}; CONNS=${CONNS:-8}; DELAY_MS=${DELAY_MS:-4}
CHURN_SECONDS=${CHURN_SECONDS:-30}; SAMPLE_SECONDS=${SAMPLE_SECONDS:-10}
source "$(dirname "$0")/../lib/as-shipped.sh"
log "machine: $(machine)"
log "soak: $MINUTES min, $CONNS connections each waiting ${DELAY_MS} ms between requests; membership change every ${CHURN_SECONDS} s"
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
endpoints() { # N: the pool's members are the first N static backends
  local list=""; for i in $(seq 1 "$1"); do list="$list${list:+,}{\"host\":\"127.0.0.1\",\"port\":$((BACKEND_BASE + i))}"; done
  "$KUBECTL" patch rp bench --type=merge -p "{\"spec\":{\"endpoints\":[$list]}}" >/dev/null
}
echo -e "t_s\tdp_rss_mib\tdp_threads\tdp_fds\tdp_old_mib\top_rss_mib\top_threads\top_fds\top_old_mib\tsnapshot" > "$OUT/soak.tsv"
start=$SECONDS; next_churn=$CHURN_SECONDS; members=3
while kill -0 "$WRK_PID" 2>/dev/null; do
  t=$((SECONDS - start))
  if [ "$t" -ge "$next_churn" ]; then
    members=$((members == 3 ? 2 : 3)); endpoints "$members"; next_churn=$((next_churn + CHURN_SECONDS))
  fi
  version=$(curl -s "http://127.0.0.1:$DP_ADMIN/metrics" | awk '/^replicapool_snapshot_version/ && !v {v = $2} END {print v}')
  echo -e "$t\t$(sample "$SHIPPED_PID")\t$(sample "$LOCAL_PID")\t${version:-}" >> "$OUT/soak.tsv"
  sleep "$SAMPLE_SECONDS"
done
cat "$OUT/wrk.txt" | tee -a "$OUT/log.txt"
python3 - "$OUT/soak.tsv" <<'PY' | tee -a "$OUT/log.txt"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))[1:]  # the first sample: still starting
third = max(1, len(rows) // 3)
first, last = rows[:third], rows[-third:]
print(f"{len(rows)} samples over {rows[-1]['t_s']} s; medians of the first and the last third:")
for k in rows[0]:
    if k in ("t_s", "snapshot"):
        continue
    a = st.median(float(r[k] or 0) for r in first)
    b = st.median(float(r[k] or 0) for r in last)
    print(f"  {k:12s} {a:9.1f} -> {b:9.1f}  ({(b - a) / a * 100 if a else 0:+.1f} %)")
print(f"  snapshot versions seen: {len({r['snapshot'] for r in rows})}")
PY
