#!/usr/bin/env bash
# The kind CLI at a pinned version, built from its Go module (sigs.k8s.io/kind) into
# ~/.local/bin like the other Go tools here: no prebuilt binary is downloaded, so this works
# where only the Go module proxy (or its cache) is reachable. Idempotent: nothing happens when
# the pinned version is already installed. v0.30.0 builds with Go 1.26 and runs Kubernetes
# v1.32 node images (its release ships one for v1.32).
set -euo pipefail

KIND_VERSION="${KIND_VERSION:-v0.30.0}"
BIN_DIR="${KIND_BIN_DIR:-$HOME/.local/bin}"
log() { printf '[provision-kind] %s\n' "$*" >&2; }

if [ -x "$BIN_DIR/kind" ] && "$BIN_DIR/kind" version 2>/dev/null | grep -q "^kind ${KIND_VERSION} "; then
  log "kind ${KIND_VERSION} present in $BIN_DIR"
  exit 0
fi
command -v go >/dev/null 2>&1 || { log "Go is needed to build kind (apt-get install golang or https://go.dev/dl)"; exit 1; }
mkdir -p "$BIN_DIR"
t=$(date +%s)
# GOTOOLCHAIN=local: use the Go that is here rather than fetching the one kind's go.mod names.
GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOBIN="$BIN_DIR" CGO_ENABLED=0 GOFLAGS=-mod=mod \
  go install -trimpath "sigs.k8s.io/kind@${KIND_VERSION}"
log "$("$BIN_DIR/kind" version) in $BIN_DIR ($(( $(date +%s) - t ))s)"
case ":$PATH:" in *":$BIN_DIR:"*) ;; *) log "add $BIN_DIR to PATH";; esac
