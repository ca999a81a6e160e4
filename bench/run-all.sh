#!/usr/bin/env bash
# Every benchmark of issue 6 in one go (~13 minutes on 2 cores); results in bench/results/<time>/,
# plots in docs/bench-*.png. CI does not run this. Needs: apt-get install -y haproxy nginx wrk;
# gnuplot (gnuplot-nox) and python3 for tables and plots; the replicapool artifacts installed in ~/.m2
# (mvn -o install -DskipTests at the root); scripts/provision-k8s.sh for the convergence part.
set -euo pipefail
B="$(cd "$(dirname "$0")" && pwd)"
export OUT="${OUT:-$B/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
"$B/proxy/run.sh"
"$B/faults/run.sh" kill freeze slow
"$B/convergence/run.sh"
"$B/scale/run.sh"
python3 "$B/plot.py" "$OUT" "$B/../docs" | tee "$OUT/tables.md" || echo "plots skipped (python3 + gnuplot needed)"
echo "results: $OUT"
