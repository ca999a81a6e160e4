#!/usr/bin/env bash
# Start-up of a replica's registrar: from the exec to its Lease seen by a watch on the API server,
# ROUNDS times for each way of starting it, rotating, beside a local run (API server, operator,
# sample replicas) as a node has neighbours. The ways: `java -jar` as the jar runs by default;
# C1 only (-XX:TieredStopAtLevel=1); an application class-data archive (AppCDS: the registrar's
# classes parsed and verified once, written by one run with -XX:ArchiveClassesAtExit); both; and
# registrar/bin/replicapool-registrar, the launcher the README uses (C1, the serial collector and
# its own archive, written by its first run, which is not counted). Medians, min and max per way
# in results.tsv, and the same for the exec to the first write as the registrar stamped it (the
# Lease's acquireTime, on the same clock): the watch's figure less the API server's and the watch's
# share.
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

# register NAME COMMAND...: exec to the Lease in the watch, in ms; the registrar is then stopped
# and its Lease deleted.
register() {
  local -; set +e # a grep that finds nothing yet, a kill of a process gone: not the script's end
  local name=$1; shift
  local t0 pid ms="" seen
  t0=$EPOCHREALTIME
  KUBECONFIG="$OUT/.local/kubeconfig" REPLICAPOOL_REGISTRAR_JAR="$REG_JAR" \
    REPLICAPOOL_CDS_DIR="$OUT/cds" "$@" --namespace "$NS" --pool startup \
    --name "$name" --address 127.0.0.1:1 --lease-ms 10000 --renew-ms 3000 \
    >>"$OUT/registrar.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 1500); do
    seen=$(grep -m1 "lease.coordination.k8s.io/startup-$name\$" "$OUT/watch.txt" | cut -d' ' -f1)
    if [ -n "$seen" ]; then ms=$(python3 -c "print(round(($seen - $t0) * 1000))"); break; fi
    sleep 0.01
  done
  # The Lease's acquireTime is the registrar's own clock as it built its first write: exec to
  # the write sent, without the API server's and the watch's share.
  local acquired written=""
  acquired=$("$KUBECTL" -n "$NS" get lease "startup-$name" -o jsonpath='{.spec.acquireTime}' 2>/dev/null)
  [ -n "$acquired" ] && written=$(python3 -c "from datetime import datetime as d
print(round((d.fromisoformat('$acquired'.replace('Z', '+00:00')).timestamp() - $t0) * 1000))")
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  "$KUBECTL" -n "$NS" delete lease "startup-$name" --ignore-not-found >/dev/null
  echo -e "${ms:-timeout}\t${written:-none}"
}

register warmup java -jar "$REG_JAR" >/dev/null # the watch is up: it listed or saw this Lease

# The archives: one run of the jar that writes the classes it loaded when it exits, and the
# launcher's first run (which writes its own).
register archive java -XX:ArchiveClassesAtExit="$OUT/registrar.jsa" -jar "$REG_JAR" >/dev/null
[ -s "$OUT/registrar.jsa" ] || { echo "no archive was written" >&2; exit 1; }
LAUNCHER="$ROOT/registrar/bin/replicapool-registrar"
register launcher-first "$LAUNCHER" >/dev/null
register launcher-second "$LAUNCHER" >/dev/null # the first run's archive is moved in place
ls "$OUT"/cds/registrar-*.jsa >/dev/null || { echo "the launcher wrote no archive" >&2; exit 1; }
log "archives: $(du -h "$OUT/registrar.jsa" | cut -f1) (jar), $(du -h "$OUT"/cds/registrar-*.jsa | cut -f1) (launcher)"

declare -A WAYS=(
  [java-jar]="java -jar $REG_JAR"
  [c1]="java -XX:TieredStopAtLevel=1 -jar $REG_JAR"
  [appcds]="java -XX:SharedArchiveFile=$OUT/registrar.jsa -jar $REG_JAR"
  [appcds+c1]="java -XX:SharedArchiveFile=$OUT/registrar.jsa -XX:TieredStopAtLevel=1 -jar $REG_JAR"
  [launcher]="$LAUNCHER"
)
ORDER=(java-jar c1 appcds appcds+c1 launcher)
echo -e "round\tway\tms\twrite_ms" > "$OUT/runs.tsv"
for r in $(seq 1 "$ROUNDS"); do
  for i in "${!ORDER[@]}"; do
    w=${ORDER[$(( (i + r) % ${#ORDER[@]} ))]} # rotating: no way always runs first
    # shellcheck disable=SC2086 # the command is words
    ms=$(register "r$r-${w//+/-}" ${WAYS[$w]})
    echo -e "$r\t$w\t$ms" | tee -a "$OUT/runs.tsv"
  done
done
python3 - "$OUT/runs.tsv" <<'PY' | tee "$OUT/results.tsv"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("way\tmedian_ms\tmin_ms\tmax_ms\truns\twrite_median_ms\twrite_min_ms\twrite_max_ms")
for s in ("java-jar", "c1", "appcds", "appcds+c1", "launcher"):
    xs = [int(r["ms"]) for r in rows if r["way"] == s and r["ms"].isdigit()]
    ws = [int(r["write_ms"]) for r in rows if r["way"] == s and r["write_ms"].lstrip("-").isdigit()]
    w = f"{st.median(ws):.0f}\t{min(ws)}\t{max(ws)}" if ws else "\t\t"
    if xs:
        print(f"{s}\t{st.median(xs):.0f}\t{min(xs)}\t{max(xs)}\t{len(xs)}\t{w}")
PY
