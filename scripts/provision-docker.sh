#!/usr/bin/env bash
# Docker Engine for kind, offline-friendly and idempotent:
#   scripts/provision-docker.sh          install Debian's docker.io if dockerd is absent, write the
#                                        daemon configuration, start dockerd if it is not running
#   scripts/provision-docker.sh --stop   stop the dockerd this script started (and only that one)
#                                        and remove the iptables chains and policy it left behind
# Every network Docker makes stays in 198.18.0.0/15 (RFC 2544, reserved for benchmarking): the
# default bridge at 198.18.200.1/24, user networks (kind's among them) cut from 198.18.208.0/20.
# Docker's default 172.17/16 and the other private ranges may be in use on the host's network.
set -euo pipefail

STATE="${DOCKER_STATE_DIR:-$HOME/.cache/replicapool/docker}"   # pid and log of the dockerd we start
DAEMON_JSON=/etc/docker/daemon.json
WANT_JSON='{"bip": "198.18.200.1/24", "default-address-pools": [{"base": "198.18.208.0/20", "size": 24}]}'
NETS=(198.18.200.0/24 198.18.208.0/20)
RUNC_WRAPPER=/usr/local/libexec/replicapool/runc-without-missing-caps
# Hosts (sandboxes, some CI runners) whose capability bounding set lacks a capability cannot
# start --privileged containers, which kind's nodes are: there dockerd's default runtime is
# scripts/cluster/runc-without-missing-caps, which drops what the host cannot grant.
if [ "$(awk '/^CapBnd:/ {print $2}' /proc/self/status)" != "000001ffffffffff" ]; then
  WANT_JSON="${WANT_JSON%\}}, \"runtimes\": {\"runc-without-missing-caps\": {\"path\": \"$RUNC_WRAPPER\"}}, \"default-runtime\": \"runc-without-missing-caps\"}"
fi

log() { printf '[provision-docker] %s\n' "$*" >&2; }
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
mkdir -p "$STATE"

# dockerd sets FORWARD's policy to DROP when it starts and does not undo it when it stops; the
# one-node cluster of scripts/local-cluster.sh (and anything else on the host) forwards through
# this host. Accepting forwarding for Docker's own ranges keeps kind working when the policy is
# put back; putting it back keeps everybody else's forwarding working.
restore_forward() {
  local net
  for net in "${NETS[@]}"; do
    $SUDO iptables -C FORWARD -s "$net" -j ACCEPT 2>/dev/null || $SUDO iptables -I FORWARD -s "$net" -j ACCEPT
    $SUDO iptables -C FORWARD -d "$net" -j ACCEPT 2>/dev/null || $SUDO iptables -I FORWARD -d "$net" -j ACCEPT
  done
  $SUDO iptables -P FORWARD ACCEPT
}

# Removes what dockerd added to iptables (chains, jumps, NAT rules, our ACCEPT rules): only
# after dockerd has stopped, so nothing it still needs goes away under it.
clean_iptables() {
  local table rule chain net
  for table in filter nat; do
    # Rules in built-in chains that jump to or mention Docker's chains.
    $SUDO iptables -t "$table" -S | grep -E '^-A (INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) .*(DOCKER|docker0|br-)' \
      | sed 's/^-A/-D/' | while read -r rule; do
        # shellcheck disable=SC2086  # the rule is a list of iptables words
        $SUDO iptables -t "$table" $rule || true
      done
    for chain in $($SUDO iptables -t "$table" -S | awk '$1 == "-N" && $2 ~ /^DOCKER/ {print $2}'); do
      $SUDO iptables -t "$table" -F "$chain" || true
    done
    for chain in $($SUDO iptables -t "$table" -S | awk '$1 == "-N" && $2 ~ /^DOCKER/ {print $2}'); do
      $SUDO iptables -t "$table" -X "$chain" || true
    done
  done
  for net in "${NETS[@]}"; do
    while $SUDO iptables -D FORWARD -s "$net" -j ACCEPT 2>/dev/null; do :; done
    while $SUDO iptables -D FORWARD -d "$net" -j ACCEPT 2>/dev/null; do :; done
  done
  $SUDO iptables -P FORWARD ACCEPT
}

if [ "${1:-}" = "--stop" ]; then
  if [ -f "$STATE/dockerd.pid" ] && pid=$(cat "$STATE/dockerd.pid") && kill -0 "$pid" 2>/dev/null; then
    # Our kind network goes with the daemon unless a node still uses it.
    docker network rm kind >/dev/null 2>&1 || true
    log "stopping dockerd (pid $pid)"
    $SUDO kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    rm -f "$STATE/dockerd.pid"
    clean_iptables
    # docker0 outlives dockerd; it holds 198.18.200.1, so take it down with the daemon.
    if ip link show docker0 >/dev/null 2>&1; then $SUDO ip link delete docker0 || true; fi
    log "stopped; FORWARD policy: $($SUDO iptables -S FORWARD | head -1)"
  else
    rm -f "$STATE/dockerd.pid"
    log "no dockerd started by this script is running; nothing to stop"
  fi
  exit 0
fi

# --- Docker Engine ---------------------------------------------------------------------
# /usr/local/bin/docker may be a lone static client (no daemon): look for dockerd itself.
if ! command -v dockerd >/dev/null 2>&1; then
  log "installing Debian's docker.io"
  t=$(date +%s)
  $SUDO apt-get update -qq || log "apt-get update failed; trying the cached package list"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io
  log "installed docker.io in $(( $(date +%s) - t ))s"
fi

# --- daemon configuration --------------------------------------------------------------
case "$WANT_JSON" in *"$RUNC_WRAPPER"*)
  src="$(dirname "$0")/cluster/runc-without-missing-caps"
  cmp -s "$src" "$RUNC_WRAPPER" || $SUDO install -D -m 0755 "$src" "$RUNC_WRAPPER";;
esac
if [ "$(cat "$DAEMON_JSON" 2>/dev/null || true)" != "$WANT_JSON" ]; then
  # Ours when it has our bridge address: rewritten (a running dockerd reads it on restart).
  if [ -s "$DAEMON_JSON" ] && ! grep -q '"bip": "198.18.200.1/24"' "$DAEMON_JSON"; then
    log "$DAEMON_JSON exists with other content; leaving it alone. Wanted: $WANT_JSON"
    grep -q '198\.18\.' "$DAEMON_JSON" || { log "it does not keep Docker in 198.18.0.0/15: refusing to start dockerd"; exit 1; }
  else
    $SUDO mkdir -p /etc/docker
    printf '%s\n' "$WANT_JSON" | $SUDO tee "$DAEMON_JSON" >/dev/null
    log "wrote $DAEMON_JSON"
  fi
fi

# --- start dockerd ---------------------------------------------------------------------
if docker info >/dev/null 2>&1; then
  log "dockerd already running"
else
  # Where systemd runs, docker.service is the normal way; containers and sandboxes here have no
  # systemd, so dockerd is started in the background and remembered for --stop.
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl start docker
  else
    log "starting dockerd (log: $STATE/dockerd.log)"
    $SUDO sh -c "nohup dockerd >'$STATE/dockerd.log' 2>&1 & echo \$! >'$STATE/dockerd.pid'"
  fi
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { log "dockerd did not come up; see $STATE/dockerd.log"; exit 1; }
fi
restore_forward
# kind makes its "kind" network with an IPv6 ULA range of its own beside an IPv4 one; made
# here first, IPv4 only and in our range, kind uses it as it is.
if ! docker network inspect kind >/dev/null 2>&1; then
  docker network create -d bridge --subnet 198.18.208.0/24 --gateway 198.18.208.1 \
    -o com.docker.network.bridge.enable_ip_masquerade=true -o com.docker.network.driver.mtu=1500 kind >/dev/null
  log "created the kind network (198.18.208.0/24, IPv4 only)"
fi
log "docker $(docker version --format '{{.Server.Version}}') ($(docker info --format '{{.Driver}}')); bridge $(docker network inspect bridge --format '{{(index .IPAM.Config 0).Subnet}}')"
