#!/usr/bin/env bash
# kind's base image (what `kind build node-image --base-image` starts from), built offline:
# kind's own recipe (images/base in the sigs.k8s.io/kind module: entrypoint, systemd units,
# containerd configuration, mount hooks) laid over a Debian root made by mmdebstrap, with
# containerd, runc and the CNI plugins from Debian and crictl from its Go module. kind's
# upstream Dockerfile builds those from git clones and starts FROM debian:bookworm-slim, and
# neither the clones nor the pull work where only package registries are reachable.
# Idempotent: nothing happens when the image exists; the Debian root is cached.
#   scripts/build-kind-base-image.sh            -> replicapool.local/kind-base:<kind version>
# Needs: dockerd running (scripts/provision-docker.sh), mmdebstrap, Go.
set -euo pipefail
cd "$(dirname "$0")/.."

KIND_VERSION="${KIND_VERSION:-v0.30.0}"            # the recipe matches the CLI of provision-kind.sh
CRICTL_VERSION="${CRICTL_VERSION:-v1.34.0}"        # the oldest cri-tools the Go module proxy serves
RELEASE="${DEBIAN_RELEASE:-bookworm}"              # kind v0.30.0's base is bookworm too
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org}"
IMAGE="${KIND_BASE_IMAGE:-replicapool.local/kind-base:${KIND_VERSION}}"
ROOT_IMAGE="replicapool.local/kind-debian-root:${RELEASE}"
CACHE="${KIND_BUILD_CACHE:-$HOME/.cache/replicapool/kind}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS=-mod=mod
export DOCKER_BUILDKIT=0   # Debian's docker.io has no buildx; the classic builder needs no pulls

log() { printf '[build-kind-base-image] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE present"
  exit 0
fi
docker info >/dev/null 2>&1 || die "dockerd is not running (scripts/provision-docker.sh)"
command -v go >/dev/null 2>&1 || die "Go is needed (crictl and kind's recipe come from Go modules)"
mkdir -p "$CACHE/bin"
start=$(date +%s)

# --- kind's recipe, from the module cache (downloaded through the Go module proxy) ----------
kind_dir=$(cd /tmp && go mod download -json "sigs.k8s.io/kind@${KIND_VERSION}" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
[ -d "$kind_dir/images/base/files" ] || die "kind ${KIND_VERSION}'s images/base not found in the module cache"

# --- crictl ------------------------------------------------------------------------------
# Not packaged by Debian bookworm. kind's node-image build and kind users call it in the node.
# go install stamps no version into it ("crictl version unknown"), so the file name carries it.
if [ ! -x "$CACHE/bin/crictl-${CRICTL_VERSION}" ]; then
  log "building crictl ${CRICTL_VERSION}"
  (cd /tmp && GOBIN="$CACHE/bin" CGO_ENABLED=0 go install -trimpath "sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}")
  mv "$CACHE/bin/crictl" "$CACHE/bin/crictl-${CRICTL_VERSION}"
fi

# --- the Debian root ---------------------------------------------------------------------
# kind's package list minus nfs-common/open-iscsi (storage drivers we do not use) and
# fuse-overlayfs (rootless only), plus Debian's containerd, runc and CNI plugins.
packages=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod
packages=$packages,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps
packages=$packages,containerd,runc,containernetworking-plugins
root_tar="$CACHE/debian-root-${RELEASE}.tar"
if [ ! -s "$root_tar" ]; then
  log "mmdebstrap $RELEASE ($MIRROR)"
  t=$(date +%s)
  mmdebstrap --mode=root --variant=minbase --format=tar --quiet --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    "$RELEASE" "$root_tar.tmp" \
    "deb $MIRROR/debian $RELEASE main" "deb $MIRROR/debian $RELEASE-updates main" \
    "deb $MIRROR/debian-security $RELEASE-security main"
  mv "$root_tar.tmp" "$root_tar"
  log "Debian root in $(( $(date +%s) - t ))s ($(du -h "$root_tar" | cut -f1))"
fi
docker image inspect "$ROOT_IMAGE" >/dev/null 2>&1 || docker import "$root_tar" "$ROOT_IMAGE" >/dev/null

# --- kind's base recipe, as the classic builder can run it --------------------------------
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp -r "$kind_dir/images/base/files" "$ctx/files"
chmod -R u+w "$ctx/files"                     # the module cache is read-only
cp "$CACHE/bin/crictl-${CRICTL_VERSION}" "$ctx/crictl"
cat > "$ctx/Dockerfile" <<EOF
FROM $ROOT_IMAGE
COPY files/ /
COPY crictl /usr/local/bin/crictl
# The same steps as kind's images/base/Dockerfile; Debian installs containerd in /usr/bin and the
# CNI plugins in /usr/lib/cni, where kind's units and configuration expect /usr/local/bin and
# /opt/cni/bin. cri-base.json is kind's: the default OCI spec plus its product-files hook.
RUN chmod 0755 /usr/local/bin/* /kind/bin /kind/bin/* \\
 && chmod -R go-w /etc/systemd /etc/containerd /etc/sysctl.d /etc/default /kind \\
 && ln -sf /usr/bin/containerd /usr/local/bin/containerd && ln -sf /usr/bin/ctr /usr/local/bin/ctr \\
 && mkdir -p /opt/cni/bin && cp /usr/lib/cni/* /opt/cni/bin/ \\
 && find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete \\
 && rm -f /lib/systemd/system/multi-user.target.wants/* \\
 && rm -f /etc/systemd/system/*.wants/* \\
 && rm -f /lib/systemd/system/local-fs.target.wants/* \\
 && rm -f /lib/systemd/system/sockets.target.wants/*udev* \\
 && rm -f /lib/systemd/system/sockets.target.wants/*initctl* \\
 && rm -f /lib/systemd/system/basic.target.wants/* \\
 && echo "ReadKMsg=no" >> /etc/systemd/journald.conf \\
 && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \\
 && systemctl mask systemd-binfmt.service \\
 && mkdir -p /etc/kubernetes/manifests \\
 && ctr oci spec \\
    | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \\
    | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json \\
 && containerd --version && runc --version && crictl --version
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]
EOF
t=$(date +%s)
docker build --quiet -t "$IMAGE" "$ctx" >/dev/null
log "$IMAGE built in $(( $(date +%s) - t ))s (whole run $(( $(date +%s) - start ))s)"
