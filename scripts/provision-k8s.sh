#!/usr/bin/env bash
# Fills kube-api-test's binary folder (kube-apiserver, etcd, kubectl) without downloading
# prebuilt binaries: kube-apiserver is built from the Go module proxy, etcd comes from
# Debian's etcd-server package, kubectl is the machine's own. Idempotent: does nothing when
# the binaries are already there. On a machine with internet kube-api-test can download the
# official binaries itself; this script is for machines that only reach package registries.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.32.4}"           # kube-api-test folder names have no leading v
minor="${K8S_VERSION%.*}"                       # 1.32
DEST="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${K8S_VERSION}-linux-amd64"
WORK="${PROVISION_WORK_DIR:-$HOME/.cache/replicapool/kube-apiserver-build}"

# shellcheck source=lib/k8s-go-build.sh
. "$(dirname "$0")/lib/k8s-go-build.sh"
log() { printf '[provision-k8s] %s\n' "$*" >&2; }
have() { [ -x "$DEST/$1" ]; }

if have kube-apiserver && have etcd && have kubectl; then
  log "binaries present in $DEST"
  exit 0
fi
mkdir -p "$DEST"
start=$(date +%s)

# --- etcd ------------------------------------------------------------------------------
if ! have etcd; then
  if ! command -v etcd >/dev/null 2>&1 && [ ! -x /usr/bin/etcd ]; then
    log "installing Debian's etcd-server"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq || log "apt-get update failed; trying the cached package list"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends etcd-server
  fi
  ETCD_BIN=$(command -v etcd || echo /usr/bin/etcd)
  # Debian's package starts a system etcd on 2379; kube-api-test runs its own, so stop it.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now etcd >/dev/null 2>&1 || true; fi
  pkill -x etcd >/dev/null 2>&1 || true
  ln -sf "$ETCD_BIN" "$DEST/etcd"
  log "etcd: $("$DEST/etcd" --version | head -1)"
fi

# --- kubectl ---------------------------------------------------------------------------
if ! have kubectl; then
  KUBECTL=$(command -v kubectl || true)
  if [ -z "$KUBECTL" ]; then
    log "no kubectl on PATH: install kubectl (any 1.31-1.33 works) and run this again"
    exit 1
  fi
  # Prefer the build matching the API server's minor version when the machine ships several.
  sibling="$(dirname "$(readlink -f "$KUBECTL")")/kubectl.${minor}"
  [ -x "$sibling" ] && KUBECTL="$sibling"
  ln -sf "$(readlink -f "$KUBECTL")" "$DEST/kubectl"
  log "kubectl: $KUBECTL"
fi

# --- kube-apiserver --------------------------------------------------------------------
if ! have kube-apiserver; then
  command -v go >/dev/null 2>&1 || { log "Go is needed to build kube-apiserver offline (apt-get install golang or https://go.dev/dl)"; exit 1; }
  log "building kube-apiserver v${K8S_VERSION} from the Go module proxy in $WORK (first time: ~10-20 min)"
  k8s_build_module
  k8s_go_build "$DEST" kube-apiserver
  log "kube-apiserver: $("$DEST/kube-apiserver" --version)"
fi
log "done in $(( $(date +%s) - start ))s: $DEST"
