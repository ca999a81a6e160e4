#!/usr/bin/env bash
# Regenerates the CRD from the Java types in api/ into crds/ (printer columns in reading order).
set -euo pipefail
cd "$(dirname "$0")/.."
# In one reactor with api/ (-am), so nothing is installed into the local repository.
mvn -B -q test -pl crds -am -Dtest=CrdInSyncTest -Dcrds.update=true -Dsurefire.failIfNoSpecifiedTests=false
# The kustomize base carries its own copy (kustomize refuses files outside a base).
cp crds/replicapools.replicapool.dev-v1.yml manifests/crd/
echo "crds/ and manifests/crd/ are in sync with api/"
