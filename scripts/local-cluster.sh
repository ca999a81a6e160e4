#!/usr/bin/env bash
# A one-node Kubernetes cluster on this machine, without Docker and without a registry:
#
#   scripts/local-cluster.sh check            # can this machine run it? says what is missing
#   scripts/local-cluster.sh up               # provision (first time), then start it
#   scripts/local-cluster.sh status           # what runs
#   scripts/local-cluster.sh load-images DIR  # import DIR/*.tar into containerd's k8s.io namespace
#   scripts/local-cluster.sh down             # stop it; leaves no process, mount, interface or rule
#
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, a kubelet on containerd (cgroupfs
# driver), kube-proxy (iptables mode), bridge CNI and CoreDNS as a Pod, all inside one network
# namespace this script creates. Node, Pod and Service addresses come from 198.18.0.0/15, which is
# reserved and routed nowhere; the namespace has no default route, so nothing in the cluster can
# reach the machine's own addresses or beyond. The host reaches the node through a veth pair.
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION="${K8S_VERSION:-1.32.4}"
BIN="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${K8S_VERSION}-linux-amd64"
IMAGES="${CLUSTER_IMAGES_DIR:-$HOME/.cache/replicapool/cluster-images}"
STATE="${LOCAL_CLUSTER_DIR:-$HOME/.replicapool/local-cluster}"
NETNS=replicapool-cluster
HOST_IF=rpc-host                  # host end of the veth pair
NODE_IF=rpc-node                  # node end, inside the namespace
HOST_IP=198.18.0.1
NODE_IP=198.18.0.2
NODE_NAME=replicapool-node
POD_CIDR=198.18.16.0/20
SERVICE_CIDR=198.19.0.0/16
API_SERVICE_IP=198.19.0.1
DNS_IP=198.19.0.10
COMPONENTS=(etcd kube-apiserver containerd kube-controller-manager kube-scheduler kubelet kube-proxy)
# Global (not per-namespace) sysctls the kubelet sets at start: restored by `down`.
KUBELET_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes)

log() { printf '[local-cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
in_ns() { nsenter --net="/run/netns/$NETNS" -- "$@"; }
kc() { "$BIN/kubectl" --kubeconfig "$STATE/kubeconfig" "$@"; }
ctr_k8s() { ctr --address "$STATE/run/containerd.sock" --namespace k8s.io "$@"; }
pid_of() { local f="$STATE/pids/$1.pid"; [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"; }

# await SECONDS WHAT CMD...: runs CMD every half second until it succeeds.
await() {
  local limit=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "$what not there after ${limit}s (logs: $STATE/logs/)"
    sleep 0.5
  done
}

# ---------------------------------------------------------------------------- network

network_up() {
  if [ ! -e "/run/netns/$NETNS" ]; then
    ip netns add "$NETNS"
  fi
  ip -n "$NETNS" link set lo up
  if ! ip link show "$HOST_IF" >/dev/null 2>&1; then
    ip link add "$HOST_IF" type veth peer name "$NODE_IF" netns "$NETNS"
  fi
  ip addr replace "$HOST_IP/24" dev "$HOST_IF"
  ip link set "$HOST_IF" up
  ip -n "$NETNS" addr replace "$NODE_IP/24" dev "$NODE_IF"
  ip -n "$NETNS" link set "$NODE_IF" up
  # The host reaches Pods and Services through the node; the node has no route beyond.
  ip route replace "$POD_CIDR" via "$NODE_IP" dev "$HOST_IF"
  ip route replace "$SERVICE_CIDR" via "$NODE_IP" dev "$HOST_IF"
  in_ns sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
}

network_down() {
  ip link del "$HOST_IF" 2>/dev/null || true       # takes its peer and the routes with it
  [ -e "/run/netns/$NETNS" ] && ip netns del "$NETNS"  # takes the bridge and its iptables rules
  return 0
}

# ---------------------------------------------------------------------------- configuration

# shellcheck source=cluster/config.sh
. scripts/cluster/config.sh   # pki, configs

# ---------------------------------------------------------------------------- processes

# start NAME CMD...: runs CMD in the node's network namespace, in its own session, logging to
# $STATE/logs/NAME.log. Does nothing if NAME already runs.
start() {
  local name=$1; shift
  if pid_of "$name" >/dev/null; then return 0; fi
  log "starting $name"
  local pidfile="$STATE/pids/$name.pid"
  rm -f "$pidfile"
  # In a session of its own (a Ctrl-C where `up` ran must not reach it); setsid may fork, so
  # the process writes its own pid before it becomes the command.
  # shellcheck disable=SC2016
  setsid sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" nsenter --net="/run/netns/$NETNS" -- "$@" \
    >> "$STATE/logs/$name.log" 2>&1 < /dev/null &
  await 10 "$name's pid" test -s "$pidfile"
}

start_control_plane() {
  local p="$STATE/pki"
  start etcd "$BIN/etcd" --data-dir "$STATE/etcd" --name node \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster node=http://127.0.0.1:2380
  start kube-apiserver "$BIN/kube-apiserver" --advertise-address "$NODE_IP" --secure-port 6443 \
    --etcd-servers http://127.0.0.1:2379 --service-cluster-ip-range "$SERVICE_CIDR" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --client-ca-file "$p/ca.crt" --token-auth-file "$p/tokens.csv" \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --kubelet-client-certificate "$p/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$p/apiserver-kubelet-client.key" --kubelet-preferred-address-types InternalIP \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true
  await 120 "the API server" kc get --raw /readyz
  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$STATE/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$STATE/controller-manager.kubeconfig" \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --use-service-account-credentials --leader-elect=false --bind-address 127.0.0.1
  start kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig "$STATE/scheduler.kubeconfig" \
    --authorization-kubeconfig "$STATE/scheduler.kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1
}

start_node() {
  start containerd containerd --config "$STATE/containerd.toml"
  await 60 "containerd" ctr --address "$STATE/run/containerd.sock" version
  load_images "$IMAGES"
  if [ ! -f "$STATE/sysctls.saved" ]; then
    sysctl "${KUBELET_SYSCTLS[@]}" | sed 's/ = /=/' > "$STATE/sysctls.saved"
  fi
  start kubelet "$BIN/kubelet" --config "$STATE/kubelet.yaml" \
    --kubeconfig "$STATE/kubelet.kubeconfig" --root-dir "$STATE/kubelet" \
    --hostname-override "$NODE_NAME" --node-ip "$NODE_IP"
  start kube-proxy "$BIN/kube-proxy" --config "$STATE/kube-proxy.yaml"
  await 120 "node $NODE_NAME Ready" kc wait --for=condition=Ready "node/$NODE_NAME" --timeout=2s
}

load_images() { # DIR
  local tar n=0
  for tar in "$1"/*.tar; do
    [ -f "$tar" ] || continue
    ctr_k8s images import --all-platforms "$tar" >/dev/null \
      || ctr_k8s images import "$tar" >/dev/null \
      || die "importing $tar failed"
    n=$((n + 1))
  done
  log "imported $n image archive(s) from $1"
}

up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespace, containerd, kubelet)"
  local t0; t0=$(date +%s)
  scripts/provision-cluster.sh
  mkdir -p "$STATE"
  # Nothing of the cluster runs, yet a run cut off before `down` (or a reboot) may have left its
  # state: started on it, the old Deployments' Pods would come back on images since replaced.
  # Start afresh, as `down` would have left it.
  local c running=""
  for c in "${COMPONENTS[@]}"; do running+=$(pid_of "$c" || true); done
  if [ -z "$running" ] && [ -d "$STATE/etcd" ]; then
    log "state of a cluster that was not brought down: clearing it first"
    down
  fi
  network_up
  pki
  configs
  start_control_plane
  start_node
  kc apply -f scripts/cluster/coredns.yaml >/dev/null
  await 180 "CoreDNS Ready" kc -n kube-system wait --for=condition=Available deployment/coredns --timeout=2s
  log "up in $(( $(date +%s) - t0 ))s"
  usage
}

usage() {
  cat >&2 <<EOF
[local-cluster] one node ($NODE_NAME, $NODE_IP), Pods $POD_CIDR, Services $SERVICE_CIDR.
  export KUBECONFIG=$STATE/kubeconfig
  kubectl get pods -A
  scripts/local-cluster.sh load-images target/images    # import images (no registry here)
  scripts/local-cluster.sh down
EOF
}

# ---------------------------------------------------------------------------- down

# Every process of the cluster: the components, the containerd shims and the containers they
# run (in the kubelet's cgroups), whatever is left in the node's network namespace.
cluster_pids() {
  local f
  for f in "$STATE"/pids/*.pid; do [ -f "$f" ] && cat "$f"; done
  [ -e "/run/netns/$NETNS" ] && ip netns pids "$NETNS"
  for f in /sys/fs/cgroup/*/kubepods; do
    [ -d "$f" ] && find "$f" -name cgroup.procs -exec cat {} + 2>/dev/null
  done
  pgrep -f -- "-address $STATE/run/containerd.sock" || true
}

alive() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null && echo "$p"; done; return 0; }

stop_processes() {
  local pids i
  pids=$(cluster_pids | sort -un)
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 1 40); do
    # shellcheck disable=SC2086
    pids=$(alive $pids)
    [ -n "$pids" ] || break
    sleep 0.25
  done
  # What is left, and whatever a dying shim left behind: killed.
  pids=$(cluster_pids | sort -un)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || { kill -KILL $pids 2>/dev/null || true; sleep 1; }
}

mounts_under() { findmnt -rn -o TARGET | grep -E "^($STATE|/run/netns/$NETNS)(/|$)" | sort -r; }

unmount_all() {
  local m
  for m in $(mounts_under); do umount "$m" 2>/dev/null || umount -l "$m"; done
}

remove_cgroups() {
  local root
  for root in /sys/fs/cgroup/*/kubepods; do
    [ -d "$root" ] && find "$root" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  return 0
}

restore_sysctls() {
  [ -f "$STATE/sysctls.saved" ] || return 0
  sysctl -qw $(cat "$STATE/sysctls.saved") || true
  rm -f "$STATE/sysctls.saved"
}

down() {
  [ "$(id -u)" -eq 0 ] || die "needs root"
  stop_processes
  unmount_all
  remove_cgroups
  network_down
  restore_sysctls
  rm -f "$STATE"/pids/*.pid
  # Pods, volumes and images go with the cluster; the PKI and the tokens are kept for the next up.
  rm -rf "$STATE/containerd" "$STATE/kubelet" "$STATE/etcd" "$STATE/cni/ipam" "$STATE/pod-logs" "$STATE/run"
  leftovers
}

# Says what `down` should have left nothing of, and fails if anything is there.
leftovers() {
  local bad=0 pids
  pids=$(alive $(cluster_pids | sort -un) | tr '\n' ' ')
  if [ -n "$pids" ]; then log "processes left: $pids"; bad=1; fi
  if [ -n "$(mounts_under)" ]; then log "mounts left: $(mounts_under | tr '\n' ' ')"; bad=1; fi
  if ip link show "$HOST_IF" >/dev/null 2>&1; then log "interface $HOST_IF left"; bad=1; fi
  if [ -e "/run/netns/$NETNS" ]; then log "network namespace $NETNS left"; bad=1; fi
  if ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1; then log "kubepods cgroups left"; bad=1; fi
  if ip route | grep -qE "^(${POD_CIDR}|${SERVICE_CIDR}) "; then log "routes left"; bad=1; fi
  if iptables-save 2>/dev/null | grep -qE 'KUBE-|CNI-'; then log "host iptables rules left"; bad=1; fi
  [ "$bad" = 0 ] && log "down: no process, mount, interface, namespace, cgroup, route or iptables rule left"
  return "$bad"
}

# ---------------------------------------------------------------------------- check

# What the machine itself must offer (what provisioning cannot install): exits 3 naming it.
check() {
  local missing=() c
  [ "$(uname -s)" = Linux ] || missing+=("Linux (this is $(uname -s))")
  [ "$(id -u)" -eq 0 ] || missing+=("root (network namespaces, containerd and the kubelet need it)")
  for c in ip nsenter setsid findmnt openssl python3; do
    command -v "$c" >/dev/null 2>&1 || missing+=("the command $c")
  done
  command -v go >/dev/null 2>&1 || [ -x "$BIN/kubelet" ] || missing+=("Go, to build the kubelet (apt-get install golang-go)")
  command -v apt-get >/dev/null 2>&1 || command -v containerd >/dev/null 2>&1 \
    || missing+=("containerd, runc, CNI plugins, iptables, conntrack (no apt-get to install them)")
  grep -qw overlay /proc/filesystems 2>/dev/null || missing+=("the overlay filesystem (containerd's snapshotter)")
  [ -e /sys/fs/cgroup/memory ] || [ -e /sys/fs/cgroup/cgroup.controllers ] || missing+=("cgroups (memory controller)")
  if [ "$(id -u)" -eq 0 ] && [ ! -e "/run/netns/$NETNS" ]; then
    local probe=replicapool-check-$$ out
    if ! out=$(ip netns add "$probe" 2>&1 && ip -n "$probe" link add rpc-check type bridge 2>&1 \
      && ip link add rpc-check0 type veth peer name rpc-check1 netns "$probe" 2>&1); then
      missing+=("network namespaces, bridges and veth pairs: $out")
    fi
    ip link del rpc-check0 2>/dev/null || true
    ip netns del "$probe" 2>/dev/null || true
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'missing: %s\n' "${missing[@]}"
    return 3
  fi
  echo "this machine can run the local cluster"
}

# ---------------------------------------------------------------------------- status

status() {
  local c pid any=0
  for c in "${COMPONENTS[@]}"; do
    if pid=$(pid_of "$c"); then echo "$c: running (pid $pid)"; any=1; else echo "$c: stopped"; fi
  done
  [ -e "/run/netns/$NETNS" ] && echo "network namespace $NETNS: present" || echo "network namespace $NETNS: absent"
  if [ "$any" = 1 ] && kc get --raw /readyz >/dev/null 2>&1; then
    echo "API server https://$NODE_IP:6443 ready; KUBECONFIG=$STATE/kubeconfig"
    kc get nodes -o wide
    kc get pods -A -o wide
  fi
}

case "${1:-}" in
  check) check ;;
  up) up ;;
  down) down ;;
  status) status ;;
  load-images) load_images "${2:?load-images needs a folder of image archives}" ;;
  -h|--help|"") sed -n '2,10p' "$0" ;;
  *) die "unknown command $1 (check | up | down | status | load-images DIR)" ;;
esac
