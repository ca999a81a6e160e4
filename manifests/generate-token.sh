#!/usr/bin/env sh
# Writes manifests/token, the control-plane token that kustomize's secretGenerator turns into
# the Secret replicapool-control-plane-token. Keeps an existing token unless --rotate is given.
#   manifests/generate-token.sh            # once, before the first `kubectl apply -k manifests/`
#   manifests/generate-token.sh --rotate   # new token; then apply -k and restart both Deployments
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
file="$dir/token"
if [ -s "$file" ] && [ "${1:-}" != "--rotate" ]; then
  echo "token exists: $file (use --rotate for a new one)"
  exit 0
fi
umask 077
if command -v openssl >/dev/null 2>&1; then
  token=$(openssl rand -hex 32)
else
  token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
fi
if [ ${#token} -ne 64 ]; then
  echo "could not generate a token" >&2
  exit 1
fi
printf '%s' "$token" > "$file.tmp"
mv "$file.tmp" "$file"
echo "wrote $file"
