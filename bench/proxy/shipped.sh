#!/usr/bin/env bash
# The data plane as users run it, beside HAProxy and nginx (one thread each) against three static
# nginx backends:
#  - "shipped": started exactly as its image starts it (the ENTRYPOINT of dataplane/Dockerfile,
#    read from the file) with -XX:MaxRAM standing in for the manifest's memory limit (read from
#    manifests/dataplane.yaml), the manifest's flags (access log to stdout, drain), one event loop;
#  - "lean": the same jar with the heap flags of bench/proxy/fast.sh (-Xms64m -Xmx256m);
#  - "candidate", when CANDIDATE="flags..." is set: the image's flags plus these (how the image's
#    flags are chosen: docs/BENCHMARKS.md);
# both fed by the real operator of a local run (scripts/run-local.sh: API server, operator probing
# its example pools, sample replicas, all running beside the benchmark as a node has neighbours),
# with a pool applied by kubectl and completed by the CRD's defaults.
#   bench/proxy/shipped.sh         ROUNDS=3 DURATION=5 CONNS=32 WARMUP=15
NO_HARNESS=1 source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; CONNS=${CONNS:-32}; WARMUP=${WARMUP:-15}
KUBECTL=${KUBECTL:-$(ls "$HOME"/.kubeapitest/k8s/*/kubectl 2>/dev/null | head -1)}
[ -x "$KUBECTL" ] || { echo "no kubectl: run scripts/provision-k8s.sh" >&2; exit 1; }
RES="$OUT/shipped.tsv"
LOCAL_TRAFFIC=$((BACKEND_BASE + 12)); LOCAL_ADMIN=$((BACKEND_BASE + 13))
OP_PORT=$((BACKEND_BASE + 14)); OP_ADMIN=$((BACKEND_BASE + 15))
LEAN_PORT=$((BACKEND_BASE + 16)); LEAN_ADMIN=$((BACKEND_BASE + 17))
CAND_PORT=$((BACKEND_BASE + 4)); CAND_ADMIN=$((BACKEND_BASE + 5)) # backends use +1..+3 here

# The jars as the images copy them (target/*.jar with target/lib/), rebuilt when a source is newer.
DP_JAR="$ROOT/dataplane/target/replicapool-dataplane.jar"; LOCAL_JAR="$ROOT/local/target/replicapool-local.jar"
stale() { [ ! -f "$1" ] || [ -n "$(cd "$ROOT" && find . -path ./.git -prune -o -path ./bench -prune -o \( -name '*.java' -o -name pom.xml \) -newer "$1" -print -quit)" ]; }
if stale "$DP_JAR" || stale "$LOCAL_JAR"; then
  log "building the jars"
  (cd "$ROOT" && mvn -B -q -ntp -o -DskipTests -Dspotless.check.skip=true package -pl dataplane,local -am)
fi

# The image's java command line, and the manifest's memory limit as the JVM sees it in a cgroup.
ENTRY=$(python3 - "$ROOT/dataplane/Dockerfile" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("ENTRYPOINT")][-1]
argv = json.loads(line[len("ENTRYPOINT"):])
assert argv[0] == "java" and argv[-2:] == ["-jar", "/app/app.jar"], argv
print(" ".join(argv[1:-2]))
PY
)
LIMIT=$(python3 - "$ROOT/manifests/dataplane.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"limits:\s*\n\s*memory:\s*(\d+)Mi", text)
print(m.group(1) + "m")
PY
)
SHIPPED_FLAGS="$ENTRY -XX:MaxRAM=$LIMIT"
log "machine: $(machine)"
log "shipped JVM flags: $SHIPPED_FLAGS"

# The local run, in $OUT (its state directory .local goes there); it finds the CRD and the example
# pools from its working directory upwards, which $OUT need not be inside.
log "starting the local run (API server, operator, sample replicas, example pools)"
ln -sfn "$ROOT/crds" "$OUT/crds"; ln -sfn "$ROOT/examples" "$OUT/examples"
(cd "$OUT" && exec java -XX:+UseSerialGC -jar "$LOCAL_JAR" --traffic-port $LOCAL_TRAFFIC \
  --admin-port $LOCAL_ADMIN --operator-port $OP_PORT --operator-admin $OP_ADMIN) >"$OUT/local-run.log" 2>&1 &
LOCAL_PID=$!
# The local run stops what it started (API server, replicas) on SIGTERM; give it the time to.
stop_local() { kill "$LOCAL_PID" 2>/dev/null && timeout 30 tail --pid="$LOCAL_PID" -f /dev/null; }
trap 'stop_local; cleanup' EXIT
end=$((SECONDS + 180))
until grep -q "ReplicaPool runs locally" "$OUT/local-run.log"; do
  kill -0 $LOCAL_PID 2>/dev/null || { tail -20 "$OUT/local-run.log"; exit 1; }
  [ $SECONDS -lt $end ] || { echo "the local run did not get ready" >&2; exit 1; }
  sleep 1
done
export KUBECONFIG="$OUT/.local/kubeconfig"

static_backends 3
# The pool as a user writes it: members, host, policy; the CRD fills in the rest. Its data planes
# are the group "bench", so the local run's own data plane does not serve it.
"$KUBECTL" apply -f - >/dev/null <<YAML
apiVersion: replicapool.dev/v1alpha1
kind: ReplicaPool
metadata: {name: bench, namespace: default}
spec:
  endpoints:
$(for i in 1 2 3; do echo "    - {host: 127.0.0.1, port: $((BACKEND_BASE + i))}"; done)
  route: {hosts: [$HOSTHDR]}
  healthCheck: {path: /healthz}
  routing: {policy: RoundRobin}
  dataPlaneGroups: [bench]
YAML
"$KUBECTL" get rp bench -o yaml > "$OUT/pool.yaml"

# dp_start NAME PORT ADMIN FLAGS...: the data plane jar, fed by the local run's operator.
dp_start() {
  local name=$1 port=$2 admin=$3; shift 3
  java "$@" -jar "$DP_JAR" --control-plane 127.0.0.1:$OP_PORT --token-file "$OUT/.local/control-plane-token" \
    --node "$name" --group bench --listen 127.0.0.1:$port --tls-listen off --admin-port 127.0.0.1:$admin \
    --drain-seconds=10 --access-log=stdout --instances 1 >"$OUT/dataplane-$name.log" 2>&1 &
  PIDS+=($!); eval "${name^^}_PID=$!"
  local end=$((SECONDS + 30))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOSTHDR" "http://127.0.0.1:$port/track/1")" = 200 ]; do
    [ $SECONDS -lt $end ] || { echo "data plane $name does not route the pool" >&2; tail -20 "$OUT/dataplane-$name.log"; exit 1; }
    sleep 0.2
  done
}
# shellcheck disable=SC2086 # the flags are words
dp_start shipped $DP_PORT $DP_ADMIN $SHIPPED_FLAGS
dp_start lean $LEAN_PORT $LEAN_ADMIN -Xms64m -Xmx256m -XX:+UseParallelGC
TARGETS=(shipped lean haproxy nginx direct)
if [ -n "${CANDIDATE:-}" ]; then
  log "candidate JVM flags: $SHIPPED_FLAGS $CANDIDATE"
  # shellcheck disable=SC2086
  dp_start candidate $CAND_PORT $CAND_ADMIN $SHIPPED_FLAGS $CANDIDATE
  TARGETS+=(candidate)
fi
"$KUBECTL" wait --for=condition=Ready rp/bench --timeout=60s >/dev/null
"$KUBECTL" get rp bench -o wide | tee -a "$OUT/log.txt"
haproxy_start 1 roundrobin 3
nginx_start 1 "" 3
declare -A PORT=([shipped]=$DP_PORT [lean]=$LEAN_PORT [haproxy]=$HAPROXY_PORT [nginx]=$NGINX_PORT [direct]=$((BACKEND_BASE + 1)) [candidate]=$CAND_PORT)
declare -A PID=([shipped]=$SHIPPED_PID [lean]=$LEAN_PID [haproxy]=$HAPROXY_PID [nginx]=$NGINX_PID [direct]=$STATIC_PID [candidate]=${CANDIDATE_PID:-0})
wrk_header
# The JIT ramp of the shipped data plane: req/s in each of its first seconds under load.
log "shipped data plane ramp, req/s per second from start:$(jit_ramp $DP_PORT "$WARMUP")"
for x in "${TARGETS[@]:1}"; do
  w=3; [[ $x == lean || $x == candidate ]] && w=$WARMUP # the JVMs get the same warm-up
  wrk -t1 -c"$CONNS" -d${w}s -H "Host: $HOSTHDR" "http://127.0.0.1:${PORT[$x]}/track/1" >/dev/null
done
for r in $(seq 1 "$ROUNDS"); do
  for i in "${!TARGETS[@]}"; do
    x=${TARGETS[$(( (i + r - 1) % ${#TARGETS[@]} ))]}
    wrk_round "$x" "${PORT[$x]}" "${PID[$x]}" "$r"
  done
done
wrk_summary "${TARGETS[@]}"
# Bytes allocated per forwarded request by the data planes' event loops (JFR, started by jcmd).
for x in "${TARGETS[@]}"; do
  [[ $x == shipped || $x == lean || $x == candidate ]] || continue
  read -r bytes n <<<"$(alloc_per_request "${PID[$x]}" "${PORT[$x]}")"
  log "$x: $bytes bytes allocated per request on the event loops ($n requests)"
  echo -e "$x\t$bytes\t$n" >> "$OUT/alloc.tsv"
done
