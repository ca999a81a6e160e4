#!/usr/bin/env bash
# Builds the container images of the operator, the data plane and the sample replica:
#   replicapool/operator:TAG, replicapool/dataplane:TAG, replicapool/sample-replica:TAG
#
#   scripts/build-images.sh                 # mvn package + docker build (TAG 0.1.0)
#   scripts/build-images.sh --kind NAME     # ... and `kind load docker-image` into cluster NAME
#   scripts/build-images.sh --skip-maven    # reuse the jars already in */target/
#   scripts/build-images.sh --tag 0.1.1     # another tag (then set it in the kustomization)
#   scripts/build-images.sh --oci           # no Docker, no registry: buildah + mmdebstrap, writes
#                                           # target/images/*.tar for `ctr -n k8s.io images import`
#   scripts/build-images.sh --oci --pause-image NAME   # the sandbox image's name (registry.k8s.io/pause:3.10)
#   scripts/build-images.sh --oci --kind NAME  # ... and `kind load image-archive` of each tar: kind
#                                           # where debian:*-slim cannot be pulled (docs/INSTALL.md)
#
# Both ways build the same Dockerfiles: images/base/Dockerfile (Debian + its JRE 17), then
# <module>/Dockerfile on it. Docker starts the base from debian:RELEASE-slim; --oci starts it from
# a minbase root of the same release that mmdebstrap makes from Debian's packages, cached in
# $REPLICAPOOL_IMAGE_CACHE (default ~/.cache/replicapool/images) so later builds reuse it.
# Needs Docker (or DOCKER=podman) and Maven; --oci needs buildah, mmdebstrap, gcc (Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."

tag=0.1.0
kind_cluster=""
maven=1
oci=0
pause_image=registry.k8s.io/pause:3.10
docker=${DOCKER:-docker}
while [ $# -gt 0 ]; do
  case "$1" in
    --kind) kind_cluster=${2:?--kind needs a cluster name}; shift 2 ;;
    --kind=*) kind_cluster=${1#--kind=}; shift ;;
    --tag) tag=${2:?--tag needs a value}; shift 2 ;;
    --tag=*) tag=${1#--tag=}; shift ;;
    --skip-maven) maven=0; shift ;;
    --oci) oci=1; shift ;;
    --pause-image) pause_image=${2:?--pause-image needs an image name}; shift 2 ;;
    --pause-image=*) pause_image=${1#--pause-image=}; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

die() { echo "build-images: $*" >&2; exit 1; }

modules=(operator dataplane sample-replica)

if [ "$oci" = 1 ]; then
  if [ -n "$kind_cluster" ] && ! command -v kind >/dev/null 2>&1; then
    die "--kind given but 'kind' is not installed (scripts/provision-kind.sh)"
  fi
  for tool in buildah gcc; do
    command -v "$tool" >/dev/null 2>&1 || die "--oci needs '$tool' (apt-get install $tool)"
  done
else
  command -v "$docker" >/dev/null 2>&1 ||
    die "'$docker' not found; install Docker (or set DOCKER=podman), or build with --oci"
  "$docker" info >/dev/null 2>&1 ||
    die "'$docker info' fails: is the daemon running and may this user use it?"
  if [ -n "$kind_cluster" ] && ! command -v kind >/dev/null 2>&1; then
    die "--kind given but 'kind' is not installed"
  fi
fi

if [ "$maven" = 1 ]; then
  echo "==> mvn package (${modules[*]})"
  mvn -B -ntp -q -DskipTests -Dspotless.check.skip=true package \
    -pl "$(IFS=,; echo "${modules[*]}")" -am
fi

for m in "${modules[@]}"; do
  jar="$m/target/replicapool-$m.jar"
  if [ ! -f "$jar" ] || [ ! -d "$m/target/lib" ]; then
    die "$jar or $m/target/lib missing: run without --skip-maven"
  fi
done

# ---- with Docker ----------------------------------------------------------------------------

docker_build() {
  local base="replicapool/jre-base:$tag" m image
  echo "==> $docker build -t $base images/base/"
  "$docker" build -t "$base" images/base/
  for m in "${modules[@]}"; do
    image="replicapool/$m:$tag"
    echo "==> $docker build -t $image $m/"
    # --network=none: a RUN step (the data plane's training run) talks to loopback only.
    "$docker" build --network=none --build-arg "BASE=$base" -t "$image" "$m/"
  done
  if [ -n "$kind_cluster" ]; then
    for m in "${modules[@]}"; do
      echo "==> kind load docker-image replicapool/$m:$tag --name $kind_cluster"
      kind load docker-image "replicapool/$m:$tag" --name "$kind_cluster"
    done
  fi
  echo "built: $(printf 'replicapool/%s:'"$tag"' ' "${modules[@]}")"
}

# ---- without Docker or a registry (--oci) -------------------------------------------------

# The Debian release is the one images/base/Dockerfile starts from for Docker users.
debian_release() {
  sed -n 's/^ARG DEBIAN_ROOT=debian:\([a-z]*\)-slim$/\1/p' images/base/Dockerfile
}

# A minbase root as debian:RELEASE-slim has it: merged /usr, no man pages, docs or locales (dpkg
# keeps excluding them for later installs), the release's updates and security suites, the
# image config Debian's images carry. Committed as the image $2.
debian_root() {
  local release=$1 name=$2 mirror=${DEBIAN_MIRROR:-http://deb.debian.org} tmp ctr
  command -v mmdebstrap >/dev/null 2>&1 || die "--oci needs 'mmdebstrap' (apt-get install mmdebstrap)"
  tmp=$(mktemp -d)
  mmdebstrap --mode=root --variant=minbase --format=tar --quiet \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    "$release" "$tmp/root.tar" \
    "deb $mirror/debian $release main" "deb $mirror/debian $release-updates main" \
    "deb $mirror/debian-security $release-security main" >"$tmp/mmdebstrap.log" 2>&1 || {
    local why
    why=$(tail -15 "$tmp/mmdebstrap.log")
    rm -rf "$tmp"
    die "mmdebstrap $release failed (mirror $mirror): $why"
  }
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$tmp/root.tar" /
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --cmd bash "$ctr"
  buildah commit --quiet --rm "$ctr" "$name" >/dev/null
  rm -rf "$tmp"
}

# Sets $base to the JRE base image, reusing buildah's store or the cache, else building it. Its
# name carries a hash of its definition, so a changed definition is never served from the cache.
oci_base() {
  local release key cache root log
  release=$(debian_release)
  [ -n "$release" ] || die "images/base/Dockerfile: no 'ARG DEBIAN_ROOT=debian:<release>-slim'"
  key=$({ cat images/base/Dockerfile; declare -f debian_root; } | sha256sum | cut -c1-12)
  base="localhost/replicapool/jre-base:$release-$key"
  cache="$cache_dir/jre-base-$release-$key.tar"
  if buildah inspect --type image "$base" >/dev/null 2>&1; then
    echo "==> base $base (in buildah's store)"
  elif [ -f "$cache" ]; then
    echo "==> base $base (from $cache)"
    buildah pull --quiet "docker-archive:$cache" >/dev/null
  else
    root="localhost/replicapool/debian-root:$release-$key"
    echo "==> base $base: mmdebstrap $release, then images/base/Dockerfile"
    debian_root "$release" "$root"
    log=$(mktemp)
    buildah bud --quiet --pull=never --network=host --build-arg "DEBIAN_ROOT=$root" \
      -t "$base" images/base/ >"$log" 2>&1 ||
      die "images/base/Dockerfile on $root failed: $(tail -15 "$log")"
    rm -f "$log"
    buildah rmi "$root" >/dev/null
    # One base per definition is kept: older ones go from the cache and, unless in use, the store.
    rm -f "$cache_dir"/jre-base-*.tar "$cache.tmp"
    buildah push --quiet "$base" "docker-archive:$cache.tmp:$base"
    mv "$cache.tmp" "$cache"
    buildah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/replicapool/jre-base:' |
      grep -vxF "$base" | xargs -r buildah rmi >/dev/null 2>&1 || true
  fi
}

# Builds context $2 with Dockerfile $3 as image $1 and writes it to target/images/$4.tar in the
# docker-archive format `ctr images import` reads, under the same fully qualified name.
oci_image() {
  local image=$1 context=$2 dockerfile=$3 out=target/images/$4.tar
  shift 4
  echo "==> buildah bud -t $image $context -> $out"
  buildah rmi "$image" >/dev/null 2>&1 || true
  buildah bud --quiet --pull=never -f "$dockerfile" "$@" -t "$image" "$context" >/dev/null
  rm -f "$out"
  buildah push --quiet "$image" "docker-archive:$out:$image"
}

oci_build() {
  local m pause_context=target/image-contexts/pause
  cache_dir=${REPLICAPOOL_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/replicapool/images}
  mkdir -p target/images "$cache_dir"
  # Worktrees of this repository share buildah's store and these image names: one build at a time.
  exec 9>"$cache_dir/.lock"
  flock 9
  oci_base
  for m in "${modules[@]}"; do
    oci_image "docker.io/replicapool/$m:$tag" "$m/" "$m/Dockerfile" "$m" --build-arg "BASE=$base" \
      --network=none # a RUN step (the data plane's training run) talks to loopback only
  done
  mkdir -p "$pause_context"
  gcc -static -Os -s -Wall -Wextra -o "$pause_context/pause" images/pause/pause.c
  oci_image "$pause_image" "$pause_context" images/pause/Dockerfile pause
  echo "built (import with: ctr -n k8s.io images import target/images/<name>.tar):"
  ls -l target/images/*.tar
  if [ -n "$kind_cluster" ]; then
    for m in "${modules[@]}"; do
      echo "==> kind load image-archive target/images/$m.tar --name $kind_cluster"
      kind load image-archive "target/images/$m.tar" --name "$kind_cluster"
    done
  fi
}

if [ "$oci" = 1 ]; then oci_build; else docker_build; fi
