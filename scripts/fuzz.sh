#!/usr/bin/env bash
# Coverage-guided fuzzing (Jazzer) of the parsers, each target for its @FuzzTest's maxDuration (20 s).
# Without JAZZER_FUZZ the same tests run in `mvn verify` as regression tests over their kept inputs
# (src/test/resources/.../<Class>Inputs/<target>/); here each target is fuzzed in a JVM of its own
# (Jazzer fuzzes one test per run). A finding fails the run and is written into the target's inputs
# directory: keep it there as a regression case once fixed. The corpus grown here stays in
# <module>/.cifuzz-corpus (not committed), so a second run goes on where the first stopped.
#   scripts/fuzz.sh                      every target
#   scripts/fuzz.sh WireFuzzTest#chunkedBody
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(WireFuzzTest#requestHead WireFuzzTest#responseHead WireFuzzTest#chunkedBody
    StreamFuzzTest#snapshotFrame LoadReportFuzzTest#headerValue)
fi
for t in "${targets[@]}"; do
  echo "fuzzing $t"
  # The load-report parser lives in controlplane (shared by the operator's probes and the data plane).
  module=dataplane
  case "$t" in LoadReportFuzzTest*) module=controlplane ;; esac
  JAZZER_FUZZ=1 mvn -B -ntp -q -Dstyle.color=never -pl "$module" -am test -Dtest="$t" \
    -Dsurefire.failIfNoSpecifiedTests=false
done
