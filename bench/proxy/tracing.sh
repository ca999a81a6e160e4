#!/usr/bin/env bash
# Tracing's cost on the static-nginx throughput bench: one data plane (one event loop) against
# three static nginx backends, as bench/proxy/accesslog.sh, once per mode: off; on but no trace
# recorded (--trace-sampling 0: every request still gets its spans' ids and each try its own
# traceparent, the participation an unsampled request pays); every request recorded and exported
# by OTLP/HTTP to a real Jaeger v2 on the same machine (--trace-sampling 1; Jaeger's own CPU shares
# the two cores, as a node-local collector would). Each mode gets a fresh data plane, a warm-up,
# then ROUNDS runs.
#   bench/proxy/tracing.sh       ROUNDS=3 DURATION=5 CONNS=32 WARMUP=10
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5}; CONNS=${CONNS:-32}; WARMUP=${WARMUP:-10}
export DP_HEAP=${DP_HEAP:--Xms64m -Xmx256m}
JAEGER=${JAEGER:-$HOME/.local/bin/jaeger}
[ -x "$JAEGER" ] || { log "jaeger: run scripts/provision-jaeger.sh"; exit 1; }
RES="$OUT/tracing.tsv"
log "machine: $(machine)"
static_backends 3
cptool
wrk_header

# Jaeger v2, in-memory, on loopback ports of this run's block; its own metrics off.
OTLP_PORT=$((BACKEND_BASE + 12)); QUERY_PORT=$((BACKEND_BASE + 13)); QUERY_GRPC=$((BACKEND_BASE + 14))
cat > "$OUT/jaeger.yaml" <<YAML
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [jaeger_storage_exporter]}
  telemetry: {metrics: {level: none}}
extensions:
  jaeger_query:
    storage: {traces: mem}
    http: {endpoint: 127.0.0.1:$QUERY_PORT}
    grpc: {endpoint: 127.0.0.1:$QUERY_GRPC}
  jaeger_storage:
    backends: {mem: {memory: {max_traces: 20000}}}
receivers:
  otlp: {protocols: {http: {endpoint: 127.0.0.1:$OTLP_PORT}}}
processors:
  batch: {timeout: 100ms}
exporters:
  jaeger_storage_exporter: {trace_storage: mem}
YAML
"$JAEGER" --config "$OUT/jaeger.yaml" > "$OUT/jaeger.log" 2>&1 &
JAEGER_PID=$!; PIDS+=($JAEGER_PID)
wait_port "$QUERY_PORT"
echo -e "mode\tround\tjaeger_cpu_us_per_req" > "$OUT/tracing-jaeger.tsv"

for mode in off unsampled all; do
  case $mode in
    off) DP_ARGS="" ;;
    unsampled) DP_ARGS="--otlp-endpoint http://127.0.0.1:$OTLP_PORT --trace-sampling 0" ;;
    all) DP_ARGS="--otlp-endpoint http://127.0.0.1:$OTLP_PORT --trace-sampling 1" ;;
  esac
  export DP_ARGS
  dataplane 1; publish RoundRobin 3
  for s in $(seq 1 "$WARMUP"); do
    wrk -t1 -c"$CONNS" -d1s -H "Host: $HOSTHDR" "http://127.0.0.1:$DP_PORT/track/1" >/dev/null
  done
  for r in $(seq 1 "$ROUNDS"); do
    j0=$(cpu_ticks "$JAEGER_PID")
    wrk_round "$mode" "$DP_PORT" "$DP_PID" "$r"
    j1=$(cpu_ticks "$JAEGER_PID")
    n=$(tail -1 "$RES" | awk -F'\t' -v d="$DURATION" '{printf "%d", $3 * d}')
    echo -e "$mode\t$r\t$(awk -v d=$((j1 - j0)) -v n="$n" -v u="$TICK_US" 'BEGIN{printf "%.1f", d*u/n}')" >> "$OUT/tracing-jaeger.tsv"
  done
  stop_pid "$DP_PID"
done
curl -s "http://127.0.0.1:$QUERY_PORT/api/services" > "$OUT/jaeger-services.json" || true
python3 - "$RES" "$OUT/tracing-jaeger.tsv" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
jaeger = list(csv.DictReader(open(sys.argv[2]), delimiter='\t'))
base = None
for mode in ("off", "unsampled", "all"):
    r = [x for x in rows if x["target"] == mode]
    rps = st.median(float(x["req_s"]) for x in r)
    cpu = st.median(float(x["cpu_us_per_req"]) for x in r)
    j = st.median(float(x["jaeger_cpu_us_per_req"]) for x in jaeger if x["mode"] == mode)
    base = base or (rps, cpu)
    print(f"{mode:9s} median req/s {rps:9.0f} ({rps / base[0]:.2f}x off)  data plane cpu us/req {cpu:5.1f} (+{cpu - base[1]:.1f})  jaeger cpu us/req {j:5.1f}")
PY
