#!/usr/bin/env bash
# Regenerates the CRD from the Java types in api/ into crds/ (printer columns in reading order).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q install -pl api -DskipTests
mvn -B -q test -pl crds -Dtest=CrdInSyncTest -Dcrds.update=true -Dsurefire.failIfNoSpecifiedTests=false
echo "crds/replicapools.replicapool.dev-v1.yml is in sync with api/"
