#!/usr/bin/env bash
# Start-up and warm-up of the data plane as users run it (bench/lib/as-shipped.sh: the image's JVM
# flags and memory limit, the manifest's warm-up, fed by an operator with a pool applied by
# kubectl, beside a local run): from the exec to its first routed answer and to its /readyz saying
# ready (both polled every 50 ms), then, from ready, its JIT ramp under load (req/s in each of its
# first RAMP_SECONDS seconds, wrk -t1 -c$CONNS against fast nginx members), and in which second it
# reached 90 % of its own full speed (the median of its last three seconds). ROUNDS times for each
# way of starting it, rotating; medians in results.tsv.
# The ways: "shipped" (the image's flags, the manifest's arguments) and each of VARIANTS
# ("name=flags" separated by "|"), the shipped way plus these: a flag that starts with "--" is the
# data plane's (after the jar, so it wins over the manifest's), any other the JVM's.
#   VARIANTS='no-warm-up=--warm-up-seconds=0|warm-up-5=--warm-up-seconds=5' bench/startup/dataplane.sh
# A variant whose flags say @CDS@ runs with an application
# class-data archive (AppCDS) written by one run of its own beforehand (-XX:ArchiveClassesAtExit,
# not counted): @CDS@ stands for -XX:SharedArchiveFile=<that archive>.
#   bench/startup/dataplane.sh      ROUNDS=3 RAMP_SECONDS=8 CONNS=32
#   VARIANTS='scaled=-XX:CompileThresholdScaling=0.1|cds=@CDS@' bench/startup/dataplane.sh
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; RAMP_SECONDS=${RAMP_SECONDS:-8}; CONNS=${CONNS:-32}
source "$(dirname "$0")/../lib/as-shipped.sh"
log "machine: $(machine)"
log "shipped JVM flags: $SHIPPED_FLAGS"
log "shipped data-plane arguments: ${SHIPPED_ARGS:-none}"
local_run_start
bench_pool_apply
# Ready needs a data plane serving the pool; each data plane started below is timed from its exec
# to its first answer, once the operator has found all three members routable.
"$KUBECTL" wait --for=jsonpath='{.status.routable}'=3 rp/bench --timeout=60s >/dev/null

declare -A FLAGS=([shipped]="")
NAMES=(shipped)
IFS='|' read -r -a extra <<<"${VARIANTS:-}"
for v in "${extra[@]}"; do
  [ -n "$v" ] || continue
  NAMES+=("${v%%=*}"); FLAGS[${v%%=*}]="${v#*=}"
done

# start NAME FLAGS...: the data plane jar as dp_start runs it, without its wait; DP_PID. FLAGS
# starting with "--" go after the jar (the data plane's), the others before it (the JVM's).
start() {
  local name=$1 w; shift
  local jvm=() args=()
  for w in "$@"; do if [[ $w == --* ]]; then args+=("$w"); else jvm+=("$w"); fi; done
  # shellcheck disable=SC2086 # SHIPPED_ARGS is words
  java "${jvm[@]}" -jar "$DP_JAR" --control-plane 127.0.0.1:$OP_PORT --token-file "$OUT/.local/control-plane-token" \
    --node "$name" --group bench --listen 127.0.0.1:$DP_PORT --tls-listen off --admin-port 127.0.0.1:$DP_ADMIN \
    --drain-seconds=0 --access-log=stdout --instances 1 $SHIPPED_ARGS "${args[@]}" >>"$OUT/dataplane-$name.log" 2>&1 &
  DP_PID=$!; PIDS+=($DP_PID)
}
stop() { kill "$DP_PID" 2>/dev/null; wait "$DP_PID" 2>/dev/null || true; }
flags_of() { # NAME: the flags of that way, @CDS@ made the archive's path
  local f=${FLAGS[$1]}
  echo "$SHIPPED_FLAGS ${f//@CDS@/-XX:SharedArchiveFile=$OUT/cds-$1.jsa}"
}

# The archives, each written by a run of its own: started, routed, loaded for a few seconds (so
# that the classes of a request's life are loaded), stopped (SIGTERM: the archive is written at
# the JVM's exit).
for n in "${NAMES[@]}"; do
  case "${FLAGS[$n]}" in *@CDS@*) ;; *) continue ;; esac
  log "writing the class-data archive of $n"
  f=$(flags_of "$n"); f=${f//-XX:SharedArchiveFile=/-XX:ArchiveClassesAtExit=}
  # shellcheck disable=SC2086 # the flags are words
  start "$n-training" $f
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1")" = 200 ]; do sleep 0.2; done
  wrk -t1 -c"$CONNS" -d3s -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1" >/dev/null
  stop
  [ -s "$OUT/cds-$n.jsa" ] || { echo "no archive written for $n" >&2; exit 1; }
done

RES="$OUT/results.tsv"
echo -e "round\tway\trouted_ms\tready_ms\tseconds_to_90pct\tfull_req_s\tramp" > "$RES"
for r in $(seq 1 "$ROUNDS"); do
  for i in $(seq 0 $((${#NAMES[@]} - 1))); do
    n=${NAMES[$(((i + r - 1) % ${#NAMES[@]}))]}
    t0=$EPOCHREALTIME
    # shellcheck disable=SC2046 # the flags are words
    start "$n" $(flags_of "$n")
    routed=""
    while :; do
      kill -0 "$DP_PID" 2>/dev/null || { tail -20 "$OUT/dataplane-$n.log"; exit 1; }
      if [ -z "$routed" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1")" = 200 ]; then
        routed=$(python3 -c "print(round(($EPOCHREALTIME - $t0) * 1000))")
      fi
      if [ -n "$routed" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DP_ADMIN/readyz")" = 200 ]; then
        break
      fi
      sleep 0.05
    done
    ready=$(python3 -c "print(round(($EPOCHREALTIME - $t0) * 1000))")
    ramp=$(jit_ramp $DP_PORT "$RAMP_SECONDS")
    stop
    read -r to90 full < <(python3 -c "
import statistics as st, sys
xs = [int(x) for x in sys.argv[1:]]
full = st.median(xs[-3:])
print(next(i + 1 for i, x in enumerate(xs) if x >= 0.9 * full), int(full))" $ramp)
    echo -e "$r\t$n\t$routed\t$ready\t$to90\t$full\t${ramp# }" | tee -a "$RES"
  done
done
python3 - "$RES" <<'PY' | tee -a "$OUT/log.txt"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("way          exec to routed (ms)   exec to ready (ms)   second after ready at 90 % of full speed   full req/s   ramp from ready (medians per second)")
for way in dict.fromkeys(r["way"] for r in rows):
    rs = [r for r in rows if r["way"] == way]
    ramps = [[int(x) for x in r["ramp"].split()] for r in rs]
    per_second = [int(st.median(col)) for col in zip(*ramps)]
    print(f"{way:12s} {st.median(int(r['routed_ms']) for r in rs):10.0f}"
          f" {st.median(int(r['ready_ms']) for r in rs):20.0f}"
          f" {st.median(int(r['seconds_to_90pct']) for r in rs):30.0f}"
          f" {st.median(int(r['full_req_s']) for r in rs):22.0f}   {per_second}")
PY
