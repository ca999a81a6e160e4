# Sourced by provision-k8s.sh and provision-cluster.sh: builds Kubernetes commands from the Go
# module proxy, so every component of one version comes from the same module and replaces.
# Callers set K8S_VERSION (no leading v) and WORK (the build module's folder).

# The build module: k8s.io/kubernetes needs its staging modules replaced by their tagged versions.
k8s_build_module() {
  local staging_version="0.${K8S_VERSION#1.}"   # k8s.io/api etc. are tagged v0.<minor>.<patch>
  local staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
    cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
    kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
    mount-utils pod-security-admission sample-apiserver"
  mkdir -p "$WORK"
  if [ ! -f "$WORK/go.mod" ]; then
    {
      echo "module replicapool.dev/kube-apiserver-build"
      echo
      echo "go 1.23"
      echo
      echo "replace ("
      for m in $staging; do echo "	k8s.io/$m => k8s.io/$m v${staging_version}"; done
      echo ")"
    } > "$WORK/go.mod"
    : > "$WORK/go.sum"
  fi
  export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
  (cd "$WORK" && go get "k8s.io/kubernetes@v${K8S_VERSION}")
}

# k8s_go_build DEST CMD...: builds k8s.io/kubernetes/cmd/CMD for each CMD into DEST/CMD, with
# the version stamped as the release build would (kubectl version, /version read it).
k8s_go_build() {
  local dest=$1; shift
  local pkg=k8s.io/component-base/version minor="${K8S_VERSION%.*}"
  local ldflags="-s -w -X ${pkg}.gitVersion=v${K8S_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor#1.}"
  ldflags="$ldflags -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  ldflags="$ldflags -X ${pkg}.gitCommit=0000000000000000000000000000000000000000"
  local tmp="$dest/.build.$$" cmds=() c
  for c in "$@"; do cmds+=("k8s.io/kubernetes/cmd/$c"); done
  mkdir -p "$tmp"
  (cd "$WORK" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${cmds[@]}")
  for c in "$@"; do mv "$tmp/$c" "$dest/$c"; done
  rmdir "$tmp"
}
