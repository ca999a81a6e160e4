#!/usr/bin/env bash
# Imports target/images/*.tar (scripts/build-images.sh --oci) into containerd's k8s.io namespace
# and runs each image briefly: the three Java entrypoints start and print their usage, the sample
# replica answers HTTP on loopback with a read-only root and a tmpfs /tmp (as the manifests run
# it), the pause image runs until SIGTERM and then exits 0.
#
#   scripts/check-images.sh                      # on a private containerd it starts and stops
#   scripts/check-images.sh --address SOCK       # on a running containerd (imports stay there)
#
# Needs containerd and ctr (apt-get install containerd), run as root; python3 reads the tars.
set -euo pipefail
cd "$(dirname "$0")/.."

address=""
while [ $# -gt 0 ]; do
  case "$1" in
    --address) address=${2:?--address needs a socket path}; shift 2 ;;
    --address=*) address=${1#--address=}; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

die() { echo "check-images: $*" >&2; exit 1; }
tag=0.1.0
modules=(operator dataplane sample-replica)
for m in "${modules[@]}" pause; do
  [ -f "target/images/$m.tar" ] || die "target/images/$m.tar missing: run scripts/build-images.sh --oci"
done

work=$(mktemp -d /tmp/replicapool-check-images.XXXXXX)
had_cgroups=0
if compgen -G '/sys/fs/cgroup/*/k8s.io' >/dev/null; then had_cgroups=1; fi
containerd_pid=""
started=()
stop() {
  local id
  for id in "${started[@]}"; do
    "${ctr[@]}" task kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    "${ctr[@]}" task delete -f "$id" >/dev/null 2>&1 || true
    "${ctr[@]}" containers rm "$id" >/dev/null 2>&1 || true
  done
  if [ -n "$containerd_pid" ]; then
    kill "$containerd_pid" 2>/dev/null || true
    wait "$containerd_pid" 2>/dev/null || true
    # runc's per-namespace cgroup parents, if this run made them and they are empty again.
    [ "$had_cgroups" = 1 ] || rmdir /sys/fs/cgroup/*/k8s.io 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop EXIT

# A containerd of its own (no CRI plugin), so a cluster's containerd on this machine is untouched.
if [ -z "$address" ]; then
  address=$work/containerd.sock
  cat >"$work/config.toml" <<EOF
version = 2
root = "$work/root"
state = "$work/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$address"
[ttrpc]
  address = "$work/containerd-ttrpc.sock"
EOF
  containerd --config "$work/config.toml" >"$work/containerd.log" 2>&1 &
  containerd_pid=$!
  for _ in $(seq 1 100); do
    ctr -a "$address" version >/dev/null 2>&1 && break
    kill -0 "$containerd_pid" 2>/dev/null || die "containerd exited: $(tail -5 "$work/containerd.log")"
    sleep 0.1
  done
fi
ctr=(ctr -a "$address" -n k8s.io)

# The name and entrypoint an image tar carries, as the kubelet would see them after the import.
image_field() {
  python3 - "$1" "$2" <<'EOF'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    manifest = json.load(t.extractfile("manifest.json"))[0]
    config = json.load(t.extractfile(manifest["Config"]))["config"]
print(manifest["RepoTags"][0] if sys.argv[2] == "name" else " ".join(config["Entrypoint"]))
EOF
}

for m in "${modules[@]}" pause; do
  echo "==> import target/images/$m.tar"
  "${ctr[@]}" images import "target/images/$m.tar" >/dev/null
done

for m in "${modules[@]}"; do
  image=$(image_field "target/images/$m.tar" name)
  [ "$image" = "docker.io/replicapool/$m:$tag" ] || die "$m.tar holds $image"
  echo "==> ctr run $image (no arguments: the entrypoint prints its usage)"
  out=$("${ctr[@]}" run --rm "$image" "check-$m-$$" 2>&1) && die "$m exited 0 without arguments"
  grep -q "usage:" <<<"$out" || die "$m printed no usage: $out"
done

# Runs image $2 as container $1 (ctr run --rm, in the background, output to $work/$1.log) with
# the remaining arguments; $run_pid is the ctr process, whose exit status is the container's.
run_bg() {
  local id=$1 image=$2
  shift 2
  started+=("$id")
  "${ctr[@]}" run --rm "$@" "$image" "$id" "${cmd[@]}" >"$work/$id.log" 2>&1 &
  run_pid=$!
}

# Kubernetes appends a Pod's args to the image's entrypoint; ctr run replaces it, so pass both.
image=docker.io/replicapool/sample-replica:$tag
read -ra cmd <<<"$(image_field target/images/sample-replica.tar entrypoint)"
cmd+=(--name check --host 127.0.0.1 --port 0)
echo "==> ctr run $image ${cmd[*]} (host network, loopback only)"
run_bg "check-replica-$$" "$image" --net-host --read-only \
  --mount type=tmpfs,src=tmpfs,dst=/tmp,options=rw:nosuid:nodev
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/check-replica-$$.log")
  [ -n "$port" ] && break
  kill -0 "$run_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || die "sample replica did not listen: $(tail -5 "$work/check-replica-$$.log")"
reply=$(curl -fsS -m 5 "http://127.0.0.1:$port/")
grep -q '"replica":"check"' <<<"$reply" || die "sample replica answered: $reply"
echo "    answered on 127.0.0.1:$port: $reply"
"${ctr[@]}" task kill -s SIGTERM "check-replica-$$"
wait "$run_pid" || true

image=$(image_field target/images/pause.tar name)
echo "==> ctr run $image until SIGTERM"
cmd=()
run_bg "check-pause-$$" "$image"
running=0
for _ in $(seq 1 50); do
  "${ctr[@]}" task ls | grep -q "^check-pause-$$ .*RUNNING" && { running=1; break; }
  sleep 0.1
done
[ "$running" = 1 ] || die "pause is not running: $(cat "$work/check-pause-$$.log")"
"${ctr[@]}" task kill -s SIGTERM "check-pause-$$"
status=0
wait "$run_pid" || status=$?
[ "$status" = 0 ] || die "pause exited with $status after SIGTERM"

echo "images OK: $("${ctr[@]}" images ls -q | grep -E 'replicapool|pause' | tr '\n' ' ')"
