#!/usr/bin/env bash
# Installs the build tools when a machine lacks them (Debian/Ubuntu). Does nothing otherwise.
set -euo pipefail
missing=()
command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v go >/dev/null 2>&1 || [ -x "$HOME/.kubeapitest/k8s/1.32.4-linux-amd64/kube-apiserver" ] || missing+=(golang-go)
# promtool checks and unit-tests the monitoring Component's alert rules (MonitoringComponentTest);
# Debian ships it only in the prometheus package, whose server we do not want running.
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[ensure-tools] please install: ${missing[*]}" >&2
  exit 1
fi
echo "[ensure-tools] installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
# No service a package brings may start while it installs: invoke-rc.d and deb-systemd-invoke
# both obey policy-rc.d's 101 ("action forbidden"). A policy already in place (containers have
# one) is left alone.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod 755 "$policy"
  trap '$SUDO rm -f "$policy"' EXIT
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The prometheus package enables its server for the next boot: we only wanted promtool.
if [[ " ${missing[*]} " == *" prometheus "* ]]; then
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  else
    $SUDO systemctl disable prometheus.service >/dev/null 2>&1 || true
    if [ -x /etc/init.d/prometheus ]; then
      $SUDO /etc/init.d/prometheus stop >/dev/null 2>&1 || true
      $SUDO update-rc.d prometheus disable >/dev/null 2>&1 || true
    fi
  fi
fi
