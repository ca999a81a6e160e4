# Sourced by scripts/local-cluster.sh: the files the cluster runs from, written into $STATE: a
# CA and the API server's certificates, tokens and kubeconfigs, and the configurations of the CNI
# plugins, containerd, the kubelet and kube-proxy. Uses the addresses local-cluster.sh defines.

pki() {
  local d="$STATE/pki"
  [ -f "$d/done" ] && return 0
  mkdir -p "$d"
  log "making a CA, the API server's certificates, the service-account key and tokens in $d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=replicapool-local-ca \
      -keyout ca.key -out ca.crt 2>/dev/null
    printf '%s\n' "subjectAltName=IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
      "extendedKeyUsage=serverAuth" > apiserver.ext
    printf '%s\n' "extendedKeyUsage=clientAuth" > client.ext
    sign() { # NAME SUBJECT EXTFILE
      openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
        -extfile "$3" -out "$1.crt" 2>/dev/null
    }
    sign apiserver /CN=kube-apiserver apiserver.ext
    sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" client.ext
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    # Clients authenticate with static tokens: user name and groups are all the authorizers need.
    : > tokens.csv
    local name user groups token
    while IFS='|' read -r name user groups; do
      token=$(openssl rand -hex 16)
      echo "$token,$user,$user${groups:+,\"$groups\"}" >> tokens.csv
      kubeconfig "$STATE/$name.kubeconfig" "$token"
    done <<EOF
admin|kubernetes-admin|system:masters
kubelet|system:node:$NODE_NAME|system:nodes
controller-manager|system:kube-controller-manager|
scheduler|system:kube-scheduler|
kube-proxy|system:kube-proxy|
EOF
    mv "$STATE/admin.kubeconfig" "$STATE/kubeconfig"
    touch done
  )
}

kubeconfig() { # FILE TOKEN
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: replicapool-local
    cluster: {server: "https://$NODE_IP:6443", certificate-authority: "$STATE/pki/ca.crt"}
users:
  - name: user
    user: {token: "$2"}
contexts:
  - name: replicapool-local
    context: {cluster: replicapool-local, user: user}
current-context: replicapool-local
EOF
}

# true when this process cannot lower its oom_score_adj: CAP_SYS_RESOURCE (bit 24) is missing.
restrict_oom() {
  local bnd; bnd=$(awk '/^CapBnd/ {print $2}' /proc/self/status)
  if (( (16#$bnd >> 24) & 1 )); then echo false; else echo true; fi
}

configs() {
  mkdir -p "$STATE/cni/net.d" "$STATE/logs" "$STATE/pids" "$STATE/run"
  echo "nameserver $DNS_IP" > "$STATE/resolv.conf"
  cat > "$STATE/cni/net.d/10-replicapool.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "replicapool",
  "plugins": [
    {
      "type": "bridge", "bridge": "rpc-pods", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": "$STATE/cni/ipam",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "${POD_CIDR%.0/*}.1"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # Images come only from `ctr import`: there is no registry to pull from, and no route to one.
  cat > "$STATE/containerd.toml" <<EOF
version = 2
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"
[grpc]
  address = "$STATE/run/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  netns_mounts_under_state_dir = true
  # Without CAP_SYS_RESOURCE (some VMs and containers drop it) runc cannot lower oom_score_adj
  # below its own, and every sandbox fails with "failed to update /proc/self/oom_score_adj".
  restrict_oom_score_adj = $(restrict_oom)
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$STATE/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
  cat > "$STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$STATE/run/containerd.sock
address: $NODE_IP
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $STATE/pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
clusterDNS: [$DNS_IP]
resolvConf: $STATE/resolv.conf
podLogsDir: $STATE/pod-logs
failSwapOn: false
serializeImagePulls: false
# One small disk shared with the builds: neither image GC nor disk eviction should start.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
EOF
  cat > "$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
nodePortAddresses: ["$NODE_IP/32"]
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# The conntrack table is the machine's: leave its size and timeouts as they are.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}
EOF
}
