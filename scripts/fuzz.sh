#!/usr/bin/env bash
# Coverage-guided fuzzing (Jazzer) of the parsers, each target for its @FuzzTest's maxDuration (20 s).
# Without JAZZER_FUZZ the same tests run in `mvn verify` as regression tests over their kept inputs
# (src/test/resources/.../<Class>Inputs/<target>/); here each target is fuzzed in a JVM of its own
# (Jazzer fuzzes one test per run). A finding fails the run and is written into the target's inputs
# directory: keep it there as a regression case once fixed. The corpus grown here stays in
# <module>/.cifuzz-corpus (not committed), so a second run goes on where the first stopped.
# FUZZ_MINUTES=N fuzzes each target for N minutes: runs of maxDuration one after the other, each
# going on from the corpus the last one grew (the annotation's duration cannot be overridden from
# outside), and prints libFuzzer's coverage (cov: edges, ft: features, corp: inputs) after each run
# and for the whole time.
#   scripts/fuzz.sh                      every target
#   scripts/fuzz.sh WireFuzzTest#chunkedBody
#   FUZZ_MINUTES=60 scripts/fuzz.sh WireFuzzTest#requestHead
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(WireFuzzTest#requestHead WireFuzzTest#responseHead WireFuzzTest#chunkedBody
    StreamFuzzTest#snapshotFrame LoadReportFuzzTest#headerValue HashKeyFuzzTest#cookieHeader)
fi
minutes=${FUZZ_MINUTES:-0}
for t in "${targets[@]}"; do
  if [ "$minutes" -gt 0 ]; then echo "fuzzing $t for $minutes min"; else echo "fuzzing $t"; fi
  # The load-report parser lives in controlplane (shared by the operator's probes and the data plane).
  # Jazzer instruments the project's own classes by default; a target whose parsing is done by a
  # library is blind in it (the snapshot's JSON in Jackson: 52 edges, 7 inputs kept in 20 s; with
  # Jackson instrumented 5,125 edges, 604 inputs), so those targets name the library too.
  module=dataplane; includes='dev.replicapool.**'
  case "$t" in
    StreamFuzzTest*) includes+=':com.fasterxml.jackson.**' ;;
    LoadReportFuzzTest*) module=controlplane; includes+=':com.fasterxml.jackson.core.**:io.vertx.core.json.**' ;;
  esac
  end=$((SECONDS + minutes * 60)); runs=0; execs=0; first=""; last=""
  while :; do
    log=$(mktemp)
    if ! JAZZER_FUZZ=1 JAZZER_INSTRUMENTATION_INCLUDES="$includes" mvn -B -ntp -q -Dstyle.color=never -pl "$module" -am test -Dtest="$t" \
        -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1; then
      cat "$log"; rm -f "$log"; exit 1
    fi
    done_line=$(grep -a 'DONE ' "$log" | tail -1 || true); rm -f "$log"
    runs=$((runs + 1)); execs=$((execs + $(sed -E 's/^#([0-9]+).*/\1/' <<<"${done_line:-#0}")))
    last=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' <<<"$done_line" || true)
    first=${first:-$last}
    [ "$minutes" -gt 0 ] && echo "  run $runs: $last"
    [ "$minutes" -gt 0 ] && [ $SECONDS -lt $end ] || break
  done
  echo "$t: $runs run(s), $execs inputs; first run $first, last run $last"
done
