# Sourced after common.sh by the benchmarks that run the data plane as users run it
# (bench/proxy/shipped.sh, bench/soak/run.sh): the jars as the images copy them, the image's JVM
# flags (SHIPPED_FLAGS), a local run (API server, operator, sample replicas) as the control plane
# and neighbours, a pool applied with kubectl, and dp_start for a data plane fed by that operator.
# OWN_OPERATOR=1: the pool lives in a namespace of its own ("bench") and is served by an operator
# of its own, the operator jar started as its image starts it (op_start), which can be stopped and
# started again alone; the local run's operator then watches only its example pools' namespace
# and listens elsewhere. The data planes dial OP_PORT either way.
KUBECTL=${KUBECTL:-$(ls "$HOME"/.kubeapitest/k8s/*/kubectl 2>/dev/null | head -1)}
[ -x "$KUBECTL" ] || { echo "no kubectl: run scripts/provision-k8s.sh" >&2; exit 1; }
LOCAL_TRAFFIC=$((BACKEND_BASE + 12)); LOCAL_ADMIN=$((BACKEND_BASE + 13))
OP_PORT=$((BACKEND_BASE + 14)); OP_ADMIN=$((BACKEND_BASE + 15))
BENCH_NS=default; LOCAL_OP_PORT=$OP_PORT; LOCAL_OP_ADMIN=$OP_ADMIN; LOCAL_OP_FLAGS=()
if [ "${OWN_OPERATOR:-0}" = 1 ]; then
  BENCH_NS=bench; LOCAL_OP_PORT=$((BACKEND_BASE + 18)); LOCAL_OP_ADMIN=$((BACKEND_BASE + 19))
  LOCAL_OP_FLAGS=(--operator-namespaces default)
fi

# The jars as the images copy them (target/*.jar with target/lib/), rebuilt when a source is newer.
DP_JAR="$ROOT/dataplane/target/replicapool-dataplane.jar"; LOCAL_JAR="$ROOT/local/target/replicapool-local.jar"
OPERATOR_JAR="$ROOT/operator/target/replicapool-operator.jar"
stale() { [ ! -f "$1" ] || [ -n "$(cd "$ROOT" && find . -path ./.git -prune -o -path ./bench -prune -o \( -name '*.java' -o -name pom.xml \) -newer "$1" -print -quit)" ]; }
if stale "$DP_JAR" || stale "$LOCAL_JAR" || stale "$OPERATOR_JAR"; then
  log "building the jars"
  (cd "$ROOT" && mvn -B -q -ntp -o -DskipTests -Dspotless.check.skip=true package -pl dataplane,operator,local -am)
fi
# Each jar runs from a copy in $OUT (with its lib/): Maven rewrites target/*.jar in place, so a
# build in the work tree during a long run would change the classes under a running JVM.
run_copy() { # JAR NAME: prints the copy's path
  mkdir -p "$OUT/jars/$2"
  cp "$1" "$OUT/jars/$2/" && cp -r "$(dirname "$1")/lib" "$OUT/jars/$2/"
  echo "$OUT/jars/$2/$(basename "$1")"
}
DP_JAR=$(run_copy "$DP_JAR" dataplane); LOCAL_JAR=$(run_copy "$LOCAL_JAR" local)
OPERATOR_JAR=$(run_copy "$OPERATOR_JAR" operator)

# image_flags DOCKERFILE MANIFEST: the image's java flags, and the manifest's memory limit as the
# JVM sees it in a cgroup (-XX:MaxRAM).
image_flags() {
  local entry limit
  entry=$(python3 - "$1" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("ENTRYPOINT")][-1]
argv = json.loads(line[len("ENTRYPOINT"):])
assert argv[0] == "java" and argv[-2:] == ["-jar", "/app/app.jar"], argv
print(" ".join(argv[1:-2]))
PY
)
  limit=$(python3 - "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"limits:\s*\n\s*memory:\s*(\d+)Mi", text)
print(m.group(1) + "m")
PY
)
  echo "$entry -XX:MaxRAM=$limit"
}
SHIPPED_FLAGS=$(image_flags "$ROOT/dataplane/Dockerfile" "$ROOT/manifests/dataplane.yaml")
# The manifest's data-plane arguments that change how it runs (its warm-up before ready), as its
# container passes them; the rest (ports, token, control plane) each benchmark gives its own.
SHIPPED_ARGS=$(grep -oE -- '--warm-up-seconds=[0-9]+' "$ROOT/manifests/dataplane.yaml" | tail -1)

# The image's class-data archive (/app/app.jsa), written here as its build writes it: by the
# training run, with the jar copy's class path (an archive only maps for the class path it was
# written with), by this machine's JVM.
if [[ " $SHIPPED_FLAGS " == *" -XX:SharedArchiveFile=/app/app.jsa "* ]]; then
  DP_CDS="$(dirname "$DP_JAR")/app.jsa"
  if [ ! -s "$DP_CDS" ]; then
    log "writing the data plane's class-data archive as its image build does"
    # The Dockerfile's own RUN line, its paths made the copies'.
    training=$(python3 - "$ROOT/dataplane/Dockerfile" "$DP_CDS" "$DP_JAR" <<'PY'
import sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
run = next(l for l in text.splitlines() if l.startswith("RUN java ") and "ArchiveClassesAtExit" in l)
print(run[len("RUN "):].replace("/app/app.jsa", sys.argv[2]).replace("/app/app.jar", sys.argv[3]))
PY
)
    # shellcheck disable=SC2086 # the command line is words
    $training >"$OUT/dataplane-training.log" 2>&1 || { tail -5 "$OUT/dataplane-training.log" >&2; exit 1; }
  fi
  SHIPPED_FLAGS=${SHIPPED_FLAGS//-XX:SharedArchiveFile=\/app\/app.jsa/-XX:SharedArchiveFile=$DP_CDS}
fi

# local_run_start: the local run, in $OUT (its state directory .local goes there); it finds the CRD
# and the example pools from its working directory upwards, which $OUT need not be inside.
local_run_start() {
  log "starting the local run (API server, operator, sample replicas, example pools)"
  ln -sfn "$ROOT/crds" "$OUT/crds"; ln -sfn "$ROOT/examples" "$OUT/examples"
  (cd "$OUT" && exec java -XX:+UseSerialGC -jar "$LOCAL_JAR" --traffic-port $LOCAL_TRAFFIC \
    --admin-port $LOCAL_ADMIN --operator-port $LOCAL_OP_PORT --operator-admin $LOCAL_OP_ADMIN \
    "${LOCAL_OP_FLAGS[@]}") >"$OUT/local-run.log" 2>&1 &
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
  if [ "${OWN_OPERATOR:-0}" = 1 ]; then
    "$KUBECTL" create namespace "$BENCH_NS" >/dev/null
    op_start
  fi
}

# op_start (OWN_OPERATOR=1): the operator jar as its image and manifest run it (the image's flags,
# the manifest's memory limit, leader election on a Lease in its namespace), watching the pool's
# namespace only; OPERATOR_PID. Its log is appended to, so a restart keeps the first run's lines.
op_start() {
  local flags; flags=$(image_flags "$ROOT/operator/Dockerfile" "$ROOT/manifests/operator.yaml")
  # shellcheck disable=SC2086 # the flags are words
  java $flags -jar "$OPERATOR_JAR" --kubeconfig "$OUT/.local/kubeconfig" --namespaces "$BENCH_NS" \
    --token-file "$OUT/.local/control-plane-token" --control-plane-host 127.0.0.1 \
    --control-plane-port $OP_PORT --admin-port $OP_ADMIN --leader-election-namespace "$BENCH_NS" \
    >>"$OUT/operator.log" 2>&1 &
  OPERATOR_PID=$!; PIDS+=($OPERATOR_PID)
  local end=$((SECONDS + 60))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$OP_ADMIN/readyz")" = 200 ]; do
    kill -0 $OPERATOR_PID 2>/dev/null || { tail -20 "$OUT/operator.log"; exit 1; }
    [ $SECONDS -lt $end ] || { echo "the operator did not get ready" >&2; tail -20 "$OUT/operator.log"; exit 1; }
    sleep 0.5
  done
}

# bench_pool_apply: three static nginx backends and the pool "bench" over them, as a user writes
# it: members, host, policy; the CRD fills in the rest. Its data planes are the group "bench", so
# the local run's own data plane does not serve it. STATIC_EACH=1: each backend an nginx of its own.
bench_pool_apply() {
  if [ "${STATIC_EACH:-0}" = 1 ]; then
    for i in 1 2 3; do static_member "$i"; done
  else
    static_backends 3
  fi
  "$KUBECTL" apply -f - >/dev/null <<YAML
apiVersion: replicapool.dev/v1alpha1
kind: ReplicaPool
metadata: {name: bench, namespace: $BENCH_NS}
spec:
  endpoints:
$(for i in 1 2 3; do echo "    - {host: 127.0.0.1, port: $((BACKEND_BASE + i))}"; done)
  route: {hosts: [$HOSTHDR]}
  healthCheck: {path: /healthz}
  routing: {policy: RoundRobin}
  dataPlaneGroups: [bench]
YAML
  "$KUBECTL" -n "$BENCH_NS" get rp bench -o yaml > "$OUT/pool.yaml"
}

# dp_start NAME PORT ADMIN FLAGS...: the data plane jar, fed by the local run's operator, with the
# manifest's arguments (SHIPPED_ARGS) and DP_ARGS after them (data-plane flags of a candidate);
# waits until it routes the pool and says it is ready.
dp_start() {
  local name=$1 port=$2 admin=$3; shift 3
  # shellcheck disable=SC2086 # SHIPPED_ARGS and DP_ARGS are words
  java "$@" -jar "$DP_JAR" --control-plane 127.0.0.1:$OP_PORT --token-file "$OUT/.local/control-plane-token" \
    --node "$name" --group bench --listen 127.0.0.1:$port --tls-listen off --admin-port 127.0.0.1:$admin \
    --drain-seconds=10 --access-log=stdout --instances 1 $SHIPPED_ARGS ${DP_ARGS:-} >"$OUT/dataplane-$name.log" 2>&1 &
  PIDS+=($!); eval "${name^^}_PID=$!"
  local end=$((SECONDS + 30))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOSTHDR" "http://127.0.0.1:$port/track/1")" = 200 ] \
    && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin/readyz")" = 200 ]; do
    [ $SECONDS -lt $end ] || { echo "data plane $name does not route the pool" >&2; tail -20 "$OUT/dataplane-$name.log"; exit 1; }
    sleep 0.2
  done
}
