#!/usr/bin/env bash
# gRPC through the data plane beside HAProxy (proto h2 to the servers) and direct: unary RPCs of
# the sample replica's Tracking/Track (grpc-java, h2c) driven by h2load, by default over ONE client
# connection with 16 concurrent streams, one event loop / thread per proxy; and the spread over 3
# members.
#   bench/proxy/grpc.sh            ROUNDS=3 REQUESTS=30000 CONNS=1 STREAMS=16
# CONNS client connections with STREAMS calls in flight on each (h2load -c, -m).
# MEMBERS=go: three grpc-go members (bench/grpc-go-member, built with the machine's Go) instead,
# called with grpc.health.v1.Health/Check; CLIENT=ghz: ghz drives the calls instead of h2load
# (go install github.com/bojand/ghz/cmd/ghz@v0.120.0). Both: the speed issue's own way.
#   MEMBERS=go CLIENT=ghz CONNS=4 STREAMS=64 bench/proxy/grpc.sh
source "$(dirname "$0")/../lib/common.sh"
ROUNDS=${ROUNDS:-3}; REQUESTS=${REQUESTS:-30000}; CONNS=${CONNS:-1}; STREAMS=${STREAMS:-16}
MEMBERS=${MEMBERS:-java}; CLIENT=${CLIENT:-h2load}
need haproxy
[ "$CLIENT" = ghz ] || need h2load
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
GHZ=$(command -v ghz || true)
[ "$CLIENT" != ghz ] || [ -n "$GHZ" ] ||
  { echo "ghz not found: go install github.com/bojand/ghz/cmd/ghz@v0.120.0" >&2; exit 1; }
RES="$OUT/grpc.tsv"
log "machine: $(machine)"
cptool
if [ "$MEMBERS" = go ]; then
  (cd "$BENCH/grpc-go-member" && go build -o "$OUT/grpc-go-member" .)
  for i in 1 2 3; do
    "$OUT/grpc-go-member" --listen "127.0.0.1:$((BACKEND_BASE + i))" >"$OUT/backend-k$i.log" 2>&1 &
    PIDS+=($!)
  done
  CALL=/grpc.health.v1.Health/Check
  printf '\x00\x00\x00\x00\x00' > "$OUT/call.bin" # an empty HealthCheckRequest, framed
else
  for i in 1 2 3; do
    "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
      dev.replicapool.replica.SampleReplicaMain --name "k$i" --host 127.0.0.1 --port 0 \
      --grpc-port $((BACKEND_BASE + i)) --threads 1 >"$OUT/backend-k$i.log" 2>&1 &
    PIDS+=($!)
  done
  CALL=/replicapool.sample.Tracking/Track
  # One unary request message: gRPC frame (flag 0, 4-byte length) around the UTF-8 string "42".
  printf '\x00\x00\x00\x00\x0242' > "$OUT/call.bin"
fi
log "members: $MEMBERS, client: $CLIENT, $CONNS connection(s) x $STREAMS calls in flight"
for i in 1 2 3; do wait_port $((BACKEND_BASE + i)); done
dataplane 1
publish RoundRobin 3 p "$HOSTHDR" "&appProtocol=kubernetes.io/h2c"
haproxy_grpc_start 1
declare -A PORT=([dataplane]=$DP_PORT [haproxy]=$HAPROXY_PORT [direct]=$((BACKEND_BASE + 1)))
h2() { # port requests: h2load's report, or ghz's summary in h2load's words
  if [ "$CLIENT" = ghz ]; then
    "$GHZ" --insecure --proto "$BENCH/faults/health.proto" --call grpc.health.v1.Health/Check \
      --authority "$HOSTHDR" --connections "$CONNS" -c $((CONNS * STREAMS)) -n "$2" -t 10s \
      -O json "127.0.0.1:$1" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin); ok = r.get("statusCodeDistribution", {}).get("OK", 0)
n, secs, rps, mean = r["count"], r["total"] / 1e9, r["rps"], r["average"] / 1e6
print(f"finished in {secs:.2f}s, {rps:.2f} req/s, 0B/s")
print(f"requests: {n} total, {n} started, {n} done, {ok} succeeded, {n - ok} failed, 0 errored")
print(f"status codes: {ok} 2xx, 0 3xx, 0 4xx, 0 5xx")
print(f"time for request: 0 0 {mean:.2f}ms 0 0")'
  else
    h2load -n "$2" -c "$CONNS" -m "$STREAMS" -d "$OUT/call.bin" -H 'content-type: application/grpc' \
      -H 'te: trailers' -H ":authority: $HOSTHDR" "http://127.0.0.1:$1$CALL" 2>&1
  fi
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
