#!/usr/bin/env bash
# Builds the benchmark drivers: Maven only resolves the classpath of the installed replicapool
# artifacts (offline), javac compiles. Prints nothing on success; writes target/cp.txt (full
# classpath, drivers first).
set -euo pipefail
H="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$H/target/classes"
# Resolved every time (a few seconds, offline): the installed artifacts' own dependencies change
# as the project does, and a stale list fails later with a missing class.
# Offline first; a new machine lacks the dependency plugin itself, which Maven Central then brings.
resolve() { mvn -B -q "$@" -f "$H/pom.xml" dependency:build-classpath -Dmdep.outputFile="$H/target/deps.txt" >/dev/null; }
resolve -o 2>/dev/null || resolve -ntp
javac -nowarn -d "$H/target/classes" -cp "$(cat "$H/target/deps.txt")" $(find "$H/src/main/java" -name '*.java')
cp "$H/logback.xml" "$H/target/classes/logback.xml"
echo "$H/target/classes:$(cat "$H/target/deps.txt")" > "$H/target/cp.txt"
