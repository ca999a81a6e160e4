#!/usr/bin/env bash
# A kind node image for Kubernetes v1.32.4 built offline, on top of build-kind-base-image.sh.
# It does what `kind build node-image` does (kubeadm, kubelet, kubectl in /usr/bin, /kind/version,
# images preloaded into the node's containerd, docker commit), by hand: kind's builder pulls
# every image kubeadm lists that is not in its Kubernetes tarball (etcd, CoreDNS, pause) and
# kindnetd and local-path-provisioner, and nothing can be pulled here. Instead every image is a
# one-layer archive of the binaries scripts/provision-cluster.sh builds (scripts/cluster/oci-image.py).
# No default CNI is preloaded: clusters use networking.disableDefaultCNI and the bridge CNI
# configuration written here (docs in README, config in scripts/cluster/kind-config.yaml).
#   scripts/build-kind-node-image.sh     -> replicapool.local/kind-node:v1.32.4
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION="${K8S_VERSION:-1.32.4}"
ETCD_IMAGE_TAG="${ETCD_IMAGE_TAG:-3.5.16-0}"       # the tag kubeadm 1.32 asks for
COREDNS_VERSION="${COREDNS_VERSION:-1.11.3}"
POD_SUBNET="${KIND_POD_SUBNET:-198.18.64.0/18}"    # must match scripts/cluster/kind-config.yaml
DEST="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${K8S_VERSION}-linux-amd64"
WORK="${NODE_BUILD_WORK_DIR:-$HOME/.cache/replicapool/k8s-node-build}"
CACHE="${KIND_BUILD_CACHE:-$HOME/.cache/replicapool/kind}"
BASE_IMAGE="${KIND_BASE_IMAGE:-replicapool.local/kind-base:v0.30.0}"
IMAGE="${KIND_NODE_IMAGE:-replicapool.local/kind-node:v${K8S_VERSION}}"
BUILD_CTR=replicapool-kind-node-build

# shellcheck source=lib/k8s-go-build.sh
. scripts/lib/k8s-go-build.sh
log() { printf '[build-kind-node-image] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE present"
  exit 0
fi
start=$(date +%s)
scripts/provision-cluster.sh            # kubelet, control-plane binaries, CoreDNS, pause (cached)
scripts/build-kind-base-image.sh
# kind drives the node with kubeadm; the local cluster does not need it, so it is built here.
if [ ! -x "$DEST/kubeadm" ]; then
  log "building kubeadm v${K8S_VERSION}"
  t=$(date +%s)
  k8s_build_module
  k8s_go_build "$DEST" kubeadm
  log "built kubeadm in $(( $(date +%s) - t ))s"
fi

# --- images, named as kubeadm and containerd's sandbox_image ask for them ----------------------
imgs="$CACHE/images-v${K8S_VERSION}"
mkdir -p "$imgs"
oci() { python3 scripts/cluster/oci-image.py "$@"; }
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  [ -s "$imgs/$c.tar" ] || OCI_IMAGE_USER=0:0 oci "$imgs/$c.tar" "registry.k8s.io/$c:v${K8S_VERSION}" \
    "/usr/local/bin/$c" "$DEST/$c=/usr/local/bin/$c"
done
# etcd at the version kubeadm asks for, built from its Go module (the server's etcdmain behind a
# three-line main): Debian's etcd 3.4 has no /readyz, so kubeadm's static Pod was never Ready.
# Static (CGO off): the image is the binary alone.
etcd_version="${ETCD_IMAGE_TAG%-*}"
if [ ! -s "$imgs/etcd-v$etcd_version.tar" ]; then
  etcd_src=$(mktemp -d)
  cp scripts/cluster/etcd/main.go "$etcd_src/"
  log "building etcd v$etcd_version from its Go module"
  t=$(date +%s)
  (cd "$etcd_src" && go mod init replicapool.local/etcd >/dev/null 2>&1 &&
    go get "go.etcd.io/etcd/server/v3@v$etcd_version" >/dev/null 2>&1 &&
    CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o etcd .) || die "etcd v$etcd_version did not build"
  OCI_IMAGE_USER=0:0 oci "$imgs/etcd-v$etcd_version.tar" "registry.k8s.io/etcd:${ETCD_IMAGE_TAG}" \
    /usr/local/bin/etcd "$etcd_src/etcd=/usr/local/bin/etcd"
  rm -rf "$etcd_src" "$imgs/etcd.tar"
  log "built etcd in $(( $(date +%s) - t ))s"
fi
# kube-proxy runs iptables and conntrack: its image is the base image's Debian root plus the binary.
if [ ! -s "$imgs/kube-proxy.tar" ]; then
  ctx=$(mktemp -d)
  cp "$DEST/kube-proxy" "$ctx/"
  printf 'FROM replicapool.local/kind-debian-root:bookworm\nCOPY kube-proxy /usr/local/bin/kube-proxy\n' > "$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build --quiet -t "registry.k8s.io/kube-proxy:v${K8S_VERSION}" "$ctx" >/dev/null
  docker save "registry.k8s.io/kube-proxy:v${K8S_VERSION}" -o "$imgs/kube-proxy.tar"
  docker rmi "registry.k8s.io/kube-proxy:v${K8S_VERSION}" >/dev/null
  rm -rf "$ctx"
fi
# kubeadm's CoreDNS adds NET_BIND_SERVICE for port 53, which only root gets without file
# capabilities (upstream's image sets them; our one-layer archives carry none): run it as root.
[ -s "$imgs/coredns.tar" ] || OCI_IMAGE_USER=0:0 oci "$imgs/coredns.tar" "registry.k8s.io/coredns/coredns:v${COREDNS_VERSION}" \
  /coredns "$DEST/coredns=/coredns"
[ -s "$imgs/pause.tar" ] || oci "$imgs/pause.tar" "registry.k8s.io/pause:3.10" /pause "$DEST/pause=/pause"

# --- the node -----------------------------------------------------------------------------
docker rm -f "$BUILD_CTR" >/dev/null 2>&1 || true
# No network: nothing in the build needs one.
docker run -d --name "$BUILD_CTR" --network none --entrypoint sleep "$BASE_IMAGE" infinity >/dev/null
trap 'docker rm -f "$BUILD_CTR" >/dev/null 2>&1 || true' EXIT
for b in kubeadm kubelet kubectl; do
  docker cp "$(readlink -f "$DEST/$b")" "$BUILD_CTR:/usr/bin/$b"
done
docker exec "$BUILD_CTR" sh -c "chown root:root /usr/bin/kube* && chmod 0755 /usr/bin/kube* && echo v${K8S_VERSION} > /kind/version"
docker cp "$imgs/." "$BUILD_CTR:/kind/images/"
# As kind's importer: a containerd of the node's own, images unpacked lazily (--no-unpack)
# because the node's overlayfs snapshotter cannot run on the build container's overlay.
docker exec "$BUILD_CTR" bash -c '
  set -euo pipefail
  nohup containerd >/tmp/containerd.log 2>&1 &
  for _ in $(seq 50); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && break; sleep 0.2; done
  for t in /kind/images/*.tar; do
    ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --no-unpack "$t" >/dev/null
  done
  ctr --namespace=k8s.io images list -q
  pkill containerd; sleep 1; rm -rf /kind/images /tmp/containerd.log'
# Without CAP_SYS_RESOURCE in the host's bounding set (this machine; some VMs and sandboxes)
# runc cannot lower a sandbox's oom_score_adj and every Pod fails, as on scripts/local-cluster.sh:
# there containerd keeps Pods at the node's score (restrict_oom_score_adj), elsewhere kind's default.
if (( ( (16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status) >> 24) & 1) == 0 )); then
  log "no CAP_SYS_RESOURCE here: restrict_oom_score_adj = true in the node's containerd"
  docker exec "$BUILD_CTR" sed -i 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' /etc/containerd/config.toml
fi
# The bridge CNI standing in for kindnetd (networking.disableDefaultCNI: true): one node, so a
# bridge with host-local addresses from the Pod subnet and masquerade to leave the node.
docker exec -i "$BUILD_CTR" bash -c "mkdir -p /etc/cni/net.d && cat > /etc/cni/net.d/10-bridge.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "replicapool-kind",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "${POD_SUBNET}"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
EOF
docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' "$BUILD_CTR" "$IMAGE" >/dev/null
log "$IMAGE built in $(( $(date +%s) - start ))s"
