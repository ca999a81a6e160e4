#!/usr/bin/env bash
# gRPC through the data plane beside HAProxy (proto h2 to the servers) and direct: unary RPCs of
# the sample replica's Tracking/Track (grpc-java, h2c) driven by h2load, by default over ONE client
# connection with 16 concurrent streams, one event loop / thread per proxy; and the spread over 3
# members.
#   bench/proxy/grpc.sh            ROUNDS=3 REQUESTS=30000 CONNS=1 STREAMS=16
# CONNS client connections with STREAMS calls in flight on each (h2load -c, -m).
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; REQUESTS=${REQUESTS:-30000}; CONNS=${CONNS:-1}; STREAMS=${STREAMS:-16}
need h2load haproxy
RES="$OUT/grpc.tsv"
log "machine: $(machine)"
cptool
for i in 1 2 3; do
  "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.replica.SampleReplicaMain --name "k$i" --host 127.0.0.1 --port 0 \
    --grpc-port $((BACKEND_BASE + i)) --threads 1 >"$OUT/backend-k$i.log" 2>&1 &
  PIDS+=($!)
done
for i in 1 2 3; do wait_port $((BACKEND_BASE + i)); done
dataplane 1
publish RoundRobin 3 p "$HOSTHDR" "&appProtocol=kubernetes.io/h2c"
haproxy_grpc_start 1
# One unary request message: gRPC frame (flag 0, 4-byte length) around the UTF-8 string "42".
printf '\x00\x00\x00\x00\x0242' > "$OUT/track.bin"
declare -A PORT=([dataplane]=$DP_PORT [haproxy]=$HAPROXY_PORT [direct]=$((BACKEND_BASE + 1)))
h2() { # port requests
  h2load -n "$2" -c "$CONNS" -m "$STREAMS" -d "$OUT/track.bin" -H 'content-type: application/grpc' -H 'te: trailers' \
    -H ":authority: $HOSTHDR" "http://127.0.0.1:$1/replicapool.sample.Tracking/Track" 2>&1
}
# warm-up: at least as many calls as a round, twice for the data plane (its JIT)
for x in dataplane dataplane haproxy direct; do h2 "${PORT[$x]}" $((REQUESTS > 20000 ? REQUESTS : 20000)) > /dev/null; done
echo -e "round\ttarget\trps\tmean_ms\tok\tfailed" > "$RES"
for r in $(seq 1 "$ROUNDS"); do
  for x in dataplane haproxy direct; do
    o=$(h2 "${PORT[$x]}" "$REQUESTS")
    rps=$(echo "$o" | awk '/^finished in/{gsub(",","",$4); print $4}')
    mean=$(echo "$o" | awk '/^time for request:/{print $6}')
    ok=$(echo "$o" | awk '/^status codes:/{print $3}')
    failed=$(echo "$o" | awk '/^requests:/{print $10}')
    echo -e "$r\t$x\t$rps\t$mean\t$ok\t$failed" | tee -a "$RES"
  done
done
curl -s "http://127.0.0.1:$DP_ADMIN/status" > "$OUT/status.json"
python3 - "$RES" "$OUT/status.json" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, json, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
rps = lambda x: st.median(float(r['rps']) for r in rows if r['target'] == x)
for x in ['dataplane', 'haproxy', 'direct']:
    print(f"{x:10s} {rps(x):>9,.0f} RPC/s  {rps(x)/rps('haproxy'):4.2f}x HAProxy")
pool = json.load(open(sys.argv[2]))['pools'][0]
print("per member through the data plane:", {m['address']: m['requests'] for m in pool['members']})
PY
