#!/usr/bin/env bash
# Start-up of a replica's registrar as its README runs it (`java -jar replicapool-registrar.jar
# ...`): from the exec to its Lease seen by a watch on the API server, ROUNDS times for each JVM
# flag set, rotating, beside a local run (API server, operator, sample replicas) as a node has
# neighbours. The flag sets: as the README runs it; C1 only (-XX:TieredStopAtLevel=1); with an
# application class-data archive (AppCDS: the registrar's classes parsed and verified once, made by
# one run with -XX:ArchiveClassesAtExit); and both. Medians, min and max per set in results.tsv.
#   bench/startup/registrar.sh        ROUNDS=5 REG_JAR=registrar/target/replicapool-registrar.jar
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-5}
source "$(dirname "$0")/../lib/as-shipped.sh"
# REG_JAR=path: another build's jar (with its lib/ beside it), for a before-and-after.
REG_JAR=${REG_JAR:-$ROOT/registrar/target/replicapool-registrar.jar}
if [ "$REG_JAR" = "$ROOT/registrar/target/replicapool-registrar.jar" ] && stale "$REG_JAR"; then
  (cd "$ROOT" && mvn -B -q -ntp -o -DskipTests -Dspotless.check.skip=true package -pl registrar -am)
fi
REG_JAR=$(run_copy "$REG_JAR" registrar)
log "machine: $(machine)"
local_run_start
NS=startup
"$KUBECTL" create namespace "$NS" >/dev/null

# The watch: each Lease event, stamped as it arrives (bash's clock, no fork per line).
"$KUBECTL" -n "$NS" get leases -w -o name 2>/dev/null |
  while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done > "$OUT/watch.txt" &
WATCH_PID=$!; PIDS+=($WATCH_PID)
sleep 2 # the watch is established (it lists nothing first)

# register NAME FLAGS...: exec to the Lease in the watch, in ms; the registrar is then stopped and
# its Lease deleted.
register() {
  local name=$1; shift
  local t0 pid ms=""
  t0=$EPOCHREALTIME
  KUBECONFIG="$OUT/.local/kubeconfig" java "$@" -jar "$REG_JAR" --namespace "$NS" --pool startup \
    --name "$name" --address 127.0.0.1:1 --lease-ms 10000 --renew-ms 3000 \
    >>"$OUT/registrar.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    seen=$(grep -m1 "lease.coordination.k8s.io/startup-$name\$" "$OUT/watch.txt" | cut -d' ' -f1)
    if [ -n "$seen" ]; then ms=$(python3 -c "print(round(($seen - $t0) * 1000))"); break; fi
    sleep 0.01
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  "$KUBECTL" -n "$NS" delete lease "startup-$name" --ignore-not-found >/dev/null
  echo "${ms:-timeout}"
}

# The archive: one run of the registrar that dumps the classes it loaded when it exits.
register archive -XX:ArchiveClassesAtExit="$OUT/registrar.jsa" >/dev/null
[ -s "$OUT/registrar.jsa" ] || { echo "no archive was written" >&2; exit 1; }
log "archive: $(du -h "$OUT/registrar.jsa" | cut -f1)"

declare -A SETS=(
  [readme]=""
  [c1]="-XX:TieredStopAtLevel=1"
  [appcds]="-XX:SharedArchiveFile=$OUT/registrar.jsa"
  [appcds+c1]="-XX:SharedArchiveFile=$OUT/registrar.jsa -XX:TieredStopAtLevel=1"
)
ORDER=(readme c1 appcds appcds+c1)
echo -e "round\tset\tms" > "$OUT/runs.tsv"
register warmup >/dev/null # the API server's first Lease write in this namespace
for r in $(seq 1 "$ROUNDS"); do
  for i in "${!ORDER[@]}"; do
    s=${ORDER[$(( (i + r) % ${#ORDER[@]} ))]} # rotating: no set always runs first
    # shellcheck disable=SC2086 # the flags are words
    ms=$(register "r$r-${s//+/-}" ${SETS[$s]})
    echo -e "$r\t$s\t$ms" | tee -a "$OUT/runs.tsv"
  done
done
python3 - "$OUT/runs.tsv" <<'PY' | tee "$OUT/results.tsv"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("set\tmedian_ms\tmin_ms\tmax_ms\truns")
for s in ("readme", "c1", "appcds", "appcds+c1"):
    xs = [int(r["ms"]) for r in rows if r["set"] == s and r["ms"].isdigit()]
    if xs:
        print(f"{s}\t{st.median(xs):.0f}\t{min(xs)}\t{max(xs)}\t{len(xs)}")
PY
