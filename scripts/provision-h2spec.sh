#!/usr/bin/env bash
# h2spec (HTTP/2 conformance) for the data plane's tests, built from its Go module into
# ~/.local/bin once; nothing happens when it is there. Works from the Go module proxy or cache.
set -euo pipefail
BIN="$HOME/.local/bin/h2spec"
[ -x "$BIN" ] && exit 0
echo "[provision-h2spec] building h2spec from its Go module" >&2
command -v go >/dev/null || { echo "[provision-h2spec] needs Go (apt-get install golang-go)" >&2; exit 1; }
mkdir -p "$HOME/.local/bin"
GOBIN="$HOME/.local/bin" go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible
