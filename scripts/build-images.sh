#!/usr/bin/env bash
# Builds the container images of the operator, the data plane and the sample replica:
#   replicapool/operator:TAG, replicapool/dataplane:TAG, replicapool/sample-replica:TAG
#
#   scripts/build-images.sh                 # mvn package + docker build (TAG 0.1.0)
#   scripts/build-images.sh --kind NAME     # ... and `kind load docker-image` into cluster NAME
#   scripts/build-images.sh --skip-maven    # reuse the jars already in */target/
#   scripts/build-images.sh --tag 0.1.1     # another tag (then set it in the kustomization)
#
# Needs Docker (or another engine whose CLI is called `docker`: DOCKER=podman) and Maven.
set -euo pipefail
cd "$(dirname "$0")/.."

tag=0.1.0
kind_cluster=""
maven=1
docker=${DOCKER:-docker}
while [ $# -gt 0 ]; do
  case "$1" in
    --kind) kind_cluster=${2:?--kind needs a cluster name}; shift 2 ;;
    --kind=*) kind_cluster=${1#--kind=}; shift ;;
    --tag) tag=${2:?--tag needs a value}; shift 2 ;;
    --tag=*) tag=${1#--tag=}; shift ;;
    --skip-maven) maven=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

if ! command -v "$docker" >/dev/null 2>&1; then
  echo "build-images: '$docker' not found; install Docker (or set DOCKER=podman)" >&2
  exit 1
fi
if ! "$docker" info >/dev/null 2>&1; then
  echo "build-images: '$docker info' fails: is the daemon running and may this user use it?" >&2
  exit 1
fi
if [ -n "$kind_cluster" ] && ! command -v kind >/dev/null 2>&1; then
  echo "build-images: --kind given but 'kind' is not installed" >&2
  exit 1
fi

modules=(operator dataplane sample-replica)

if [ "$maven" = 1 ]; then
  echo "==> mvn package (${modules[*]})"
  mvn -B -ntp -q -DskipTests -Dspotless.check.skip=true package \
    -pl "$(IFS=,; echo "${modules[*]}")" -am
fi

for m in "${modules[@]}"; do
  jar="$m/target/replicapool-$m.jar"
  if [ ! -f "$jar" ] || [ ! -d "$m/target/lib" ]; then
    echo "build-images: $jar or $m/target/lib missing: run without --skip-maven" >&2
    exit 1
  fi
  image="replicapool/$m:$tag"
  echo "==> $docker build -t $image $m/"
  "$docker" build -t "$image" "$m/"
done

if [ -n "$kind_cluster" ]; then
  for m in "${modules[@]}"; do
    echo "==> kind load docker-image replicapool/$m:$tag --name $kind_cluster"
    kind load docker-image "replicapool/$m:$tag" --name "$kind_cluster"
  done
fi

echo "built: $(printf 'replicapool/%s:'"$tag"' ' "${modules[@]}")"
