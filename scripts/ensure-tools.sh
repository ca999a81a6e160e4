#!/usr/bin/env bash
# Installs the build tools when a machine lacks them (Debian/Ubuntu). Does nothing otherwise.
set -euo pipefail
missing=()
command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v go >/dev/null 2>&1 || [ -x "$HOME/.kubeapitest/k8s/1.32.4-linux-amd64/kube-apiserver" ] || missing+=(golang-go)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[ensure-tools] please install: ${missing[*]}" >&2
  exit 1
fi
echo "[ensure-tools] installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
