#!/usr/bin/env bash
# Everything scripts/local-cluster.sh runs, on top of what scripts/provision-k8s.sh provides
# (kube-apiserver, etcd, kubectl), without downloading prebuilt binaries or images:
#   - kube-controller-manager, kube-scheduler, kubelet, kube-proxy: built from the same Go
#     module, version and replaces as kube-apiserver (scripts/lib/k8s-go-build.sh);
#   - CoreDNS, built from its Go module;
#   - containerd, runc, the CNI plugins, iptables, conntrack: Debian packages;
#   - the pause and CoreDNS images: one-layer OCI archives of static binaries (pause from
#     images/pause/pause.c, the same program as the product's pause image).
# Idempotent: what is there is kept, so later runs are offline and take a second.
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION="${K8S_VERSION:-1.32.4}"
COREDNS_VERSION="${COREDNS_VERSION:-1.11.3}"    # the one kubeadm 1.32 installs
DEST="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${K8S_VERSION}-linux-amd64"
WORK="${NODE_BUILD_WORK_DIR:-$HOME/.cache/replicapool/k8s-node-build}"  # not provision-k8s.sh's: they may run at once
IMAGES="${CLUSTER_IMAGES_DIR:-$HOME/.cache/replicapool/cluster-images}"
PAUSE_IMAGE="registry.k8s.io/pause:3.10"          # the name containerd's sandbox_image says
COREDNS_IMAGE="registry.k8s.io/coredns/coredns:v${COREDNS_VERSION}"

# shellcheck source=lib/k8s-go-build.sh
. scripts/lib/k8s-go-build.sh
log() { printf '[provision-cluster] %s\n' "$*" >&2; }
start=$(date +%s)

scripts/provision-k8s.sh

# --- Debian packages -------------------------------------------------------------------
# buildah, mmdebstrap and gcc build the product's images without Docker (build-images.sh --oci).
packages=(containerd runc containernetworking-plugins iptables conntrack buildah mmdebstrap gcc)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  log "installing ${missing[*]}"
  $SUDO apt-get update -qq || log "apt-get update failed; trying the cached package list"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The package starts a system containerd where systemd runs; the cluster runs its own.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now containerd >/dev/null 2>&1 || true; fi
fi

# --- Kubernetes node and control-plane commands ----------------------------------------
node_cmds=()
for c in kube-controller-manager kube-scheduler kubelet kube-proxy; do
  [ -x "$DEST/$c" ] || node_cmds+=("$c")
done
if [ ${#node_cmds[@]} -gt 0 ]; then
  command -v go >/dev/null 2>&1 || { log "Go is needed to build ${node_cmds[*]} (apt-get install golang)"; exit 1; }
  log "building ${node_cmds[*]} v${K8S_VERSION} in $WORK"
  t=$(date +%s)
  k8s_build_module
  k8s_go_build "$DEST" "${node_cmds[@]}"
  log "built ${node_cmds[*]} in $(( $(date +%s) - t ))s"
fi

# --- CoreDNS and pause -----------------------------------------------------------------
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
if [ ! -x "$DEST/coredns" ]; then
  log "building CoreDNS v${COREDNS_VERSION}"
  t=$(date +%s)
  GOBIN="$DEST/.coredns-build" CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@v${COREDNS_VERSION}"
  mv "$DEST/.coredns-build/coredns" "$DEST/coredns" && rmdir "$DEST/.coredns-build"
  log "built CoreDNS in $(( $(date +%s) - t ))s"
fi
# The sandbox process is the one scripts/build-images.sh puts in its pause image (images/pause/),
# so both images of that name run the same program. Replaced only when the build differs, so the
# image below is not rebuilt for nothing.
gcc -static -Os -s -Wall -Wextra -o "$DEST/.pause.new" images/pause/pause.c
if cmp -s "$DEST/.pause.new" "$DEST/pause"; then rm "$DEST/.pause.new"; else mv "$DEST/.pause.new" "$DEST/pause"; fi

mkdir -p "$IMAGES"
# One static binary as the image's whole content and entry point; rebuilt when the binary is newer.
image_tar() { # NAME FILE BINARY
  local name=$1 file=$2 bin=$3
  if [ ! -f "$IMAGES/$file" ] || [ "$bin" -nt "$IMAGES/$file" ]; then
    python3 scripts/cluster/oci-image.py "$IMAGES/$file.tmp" "$name" "/$(basename "$bin")" "$bin=/$(basename "$bin")"
    mv "$IMAGES/$file.tmp" "$IMAGES/$file"
    log "image $name: $IMAGES/$file"
  fi
}
image_tar "$PAUSE_IMAGE" pause.tar "$DEST/pause"
image_tar "$COREDNS_IMAGE" coredns.tar "$DEST/coredns"

log "done in $(( $(date +%s) - start ))s: binaries in $DEST, images in $IMAGES"
