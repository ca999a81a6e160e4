#!/usr/bin/env bash
# Jaeger (a real OTLP receiver with a query API) for the data plane's tracing tests, built from
# its Go module into ~/.local/bin once; nothing happens when it is there. Works from the Go
# module proxy or cache. Tests look for ~/.local/bin/jaeger and skip when it is absent.
set -euo pipefail
BIN="$HOME/.local/bin/jaeger"
[ -x "$BIN" ] && exit 0
echo "[provision-jaeger] building jaeger v1.75.0 (v2 binary) from its Go module" >&2
command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "[provision-jaeger] needs Go (apt-get install golang-go)" >&2; exit 1; }
mkdir -p "$HOME/.local/bin"
# go install refuses it (its go.mod has replace directives), so a throwaway module requires it
# as a tool and builds that.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init provision-jaeger >/dev/null 2>&1
go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@v1.75.0
go build -o "$BIN.tmp" github.com/jaegertracing/jaeger/cmd/jaeger
mv "$BIN.tmp" "$BIN"
