#!/usr/bin/env bash
# Probing benchmark: 10,000 members in 1,000 pools probed every second by one Prober, against
# HTTP servers on 127.0.0.1 (child JVMs). Reports the start-up (until every member answered),
# then measures 60 s after a 10 s warm-up, once per scheduling strategy. Figures and the machine
# they came from: docs/BENCH-PROBING.md.
#
#   bench/probing/run.sh                       # both strategies, defaults
#   SCHEDULING=WHEEL bench/probing/run.sh --members 2000 --duration 20
#
# Compiles only the probing package and the benchmark (javac against the operator module's
# dependency classpath), so it runs while the rest of the operator module is being changed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$ROOT/bench/probing/target"
mkdir -p "$OUT/classes"
cd "$ROOT"

mvn -B -q -o -pl operator dependency:build-classpath \
  -Dmdep.outputFile="$OUT/classpath.txt" -Dmdep.includeScope=test >/dev/null
CP="$OUT/classes:$(cat "$OUT/classpath.txt")"
javac -nowarn -d "$OUT/classes" -cp "$CP" \
  operator/src/main/java/dev/replicapool/operator/probing/*.java \
  operator/src/test/java/dev/replicapool/operator/probing/ProbeBenchmark.java \
  operator/src/test/java/dev/replicapool/operator/probing/ProbeBenchServers.java

echo "machine: $(nproc) cores, $(free -m | awk '/^Mem:/ {print $2}') MiB memory, $(uname -sr), open files limit $(ulimit -n)"
for s in ${SCHEDULING:-WHEEL TIMERS}; do
  java -Xmx512m -Dlogback.configurationFile="$ROOT/bench/probing/logback.xml" -cp "$CP" \
    dev.replicapool.operator.probing.ProbeBenchmark --scheduling "$s" "$@"
  echo
done
