# Shared by the bench/*/run.sh scripts: builds the harness, starts and stops the processes of a run.
# Everything listens on 127.0.0.1; every process started here is remembered by PID and stopped by
# PID on exit (never by name).
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
OUT="${OUT:-$BENCH/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
# NO_HARNESS=1: a script that runs only the shipped jars (bench/proxy/shipped.sh) needs no drivers.
if [ "${NO_HARNESS:-0}" != 1 ]; then
  "$BENCH/harness/build.sh"
  CP="$(cat "$BENCH/harness/target/cp.txt")"
fi
JAVA="${JAVA:-java}"
PIDS=()
# Ports: a block of 17 free ports below the ephemeral range, picked at start (other benchmarks on
# this machine hold thousands of ports): backends BASE+1..+5, then control plane, data plane,
# HAProxy, nginx (BASE+6..+11), then BASE+12..+17 for scripts that run more (shipped.sh).
free_block() { python3 -c "
import socket,random
while True:
    b=random.randrange(20000,30000); ok=True; socks=[]
    for p in range(b+1,b+21):
        s=socket.socket()
        try: s.bind(('127.0.0.1',p)); socks.append(s)
        except OSError: ok=False; break
    if ok: print(b); break"; }
BACKEND_BASE=$(free_block)
CP_PORT=$((BACKEND_BASE + 6)); CP_HTTP=$((BACKEND_BASE + 7)); DP_PORT=$((BACKEND_BASE + 8))
DP_ADMIN=$((BACKEND_BASE + 9)); HAPROXY_PORT=$((BACKEND_BASE + 10)); NGINX_PORT=$((BACKEND_BASE + 11))
HOSTHDR=bench.local
TOKEN_FILE="$OUT/token"; echo "bench-token" > "$TOKEN_FILE"

cleanup() {
  set +e
  local p
  for p in "${PIDS[@]:-}"; do
    [[ "$p" =~ ^[1-9][0-9]*$ ]] || continue # never 0 or empty: kill 0 would hit the whole group
    kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null
  done
  sleep 0.5
  for p in "${PIDS[@]:-}"; do [[ "$p" =~ ^[1-9][0-9]*$ ]] && kill -9 "$p" 2>/dev/null; done
  return 0
}
trap cleanup EXIT
trap "exit 130" INT TERM

# need tool...: a script stops at once, saying what is missing, instead of failing later in silence.
need() {
  local t
  for t in "$@"; do
    command -v "$t" > /dev/null || {
      echo "missing $t: apt-get install -y haproxy nginx wrk nghttp2-client (h2load); see docs/BENCHMARKS.md" >&2
      exit 2
    }
  done
}
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/log.txt"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
machine() {
  echo "date: $(date -Is); host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -h | awk '/^Mem:/{print $2}') memory; $(uname -sr); $(java -version 2>&1 | head -1); $(haproxy -v 2>/dev/null | head -1 | cut -d' ' -f1-3); $(nginx -v 2>&1); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); load $(loadavg)"
}

wait_port() { # port [seconds]
  local end=$((SECONDS + ${2:-30}))
  until (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; do
    [ $SECONDS -lt $end ] || { echo "port $1 did not open" >&2; return 1; }
    sleep 0.1
  done
}

# backend NAME PORT: a sample replica with one event loop, full JIT, warmed up.
BACKEND_PID=()
backend() {
  "$JAVA" -Xmx128m -XX:+UseSerialGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.replica.SampleReplicaMain --name "$1" --host 127.0.0.1 --port "$2" --threads 1 \
    >"$OUT/backend-$1.log" 2>&1 &
  PIDS+=($!); BACKEND_PID[$2]=$!
  wait_port "$2"
}
backends() { # N: k1..kN on BACKEND_BASE+i
  for i in $(seq 1 "$1"); do backend "k$i" $((BACKEND_BASE + i)); done
  for i in $(seq 1 "$1"); do curl -s -o /dev/null "http://127.0.0.1:$((BACKEND_BASE + i))/admin/reset" -X POST; done
}
members_csv() { local s=""; for i in $(seq 1 "$1"); do s="$s${s:+,}127.0.0.1:$((BACKEND_BASE + i))"; done; echo "$s"; }
admin() { curl -s -o /dev/null -X POST "http://127.0.0.1:$((BACKEND_BASE + $1))/admin/$2"; }

cptool() {
  "$JAVA" -Xmx256m -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" dev.replicapool.bench.CpTool \
    --port $CP_PORT --http-port $CP_HTTP --token-file "$TOKEN_FILE" >"$OUT/cptool.log" 2>&1 &
  PIDS+=($!)
  wait_port $CP_HTTP
}
publish() { # POLICY N [POOL [HOST [extra query]]]: a new pool name gives a fresh router (no history)
  curl -sf "http://127.0.0.1:$CP_HTTP/publish?pool=bench/${3:-p}&policy=$1&hosts=${4:-$HOSTHDR}&members=$(members_csv "$2")${5:-}" >/dev/null
}

# dataplane INSTANCES: DataPlaneMain with --instances N (event loops serving the port); DP_ARGS
# adds flags (bench/proxy/accesslog.sh: the access log's).
DP_PID=""
dataplane() {
  # The GC the image uses (dataplane/Dockerfile); DP_GC=-XX:+UseG1GC compares.
  "$JAVA" ${DP_HEAP:--Xms256m -Xmx512m} ${DP_GC:--XX:+UseParallelGC} ${DP_JAVA_OPTS:-} -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.dataplane.DataPlaneMain --control-plane 127.0.0.1:$CP_PORT --token-file "$TOKEN_FILE" \
    --node bench-dp --listen 127.0.0.1:$DP_PORT --tls-listen off --admin-port 127.0.0.1:$DP_ADMIN \
    --instances "$1" ${DP_ARGS:-} >"$OUT/dataplane.log" 2>&1 &
  DP_PID=$!; PIDS+=($DP_PID)
  wait_port $DP_PORT; wait_port $DP_ADMIN
  local end=$((SECONDS + 20))
  until curl -sf "http://127.0.0.1:$DP_ADMIN/healthz" >/dev/null; do [ $SECONDS -lt $end ] || return 1; sleep 0.1; done
}
# static_backends N: nginx (one worker) answering like the sample replica, with nothing else to do:
# "return 200" with a 60-byte JSON body and x-replica kI on BACKEND_BASE+i, /healthz 200. Fast
# backends let the proxy's own cost show; JVM backends on the same two cores hide it.
STATIC_PID=""
static_backends() {
  nginx_static "$OUT/static" $(seq 1 "$1")
  STATIC_PID=$NGINX_STATIC_PID
}
# static_member I: member kI alone in an nginx of its own, so that it can be killed alone (its pid
# in $OUT/static-kI/nginx.pid).
static_member() { nginx_static "$OUT/static-k$1" "$1"; }
# nginx_static DIR I...: one nginx (one worker) serving members kI on BACKEND_BASE+I.
nginx_static() {
  need nginx
  local dir=$1; shift; mkdir -p "$dir"
  {
    echo "worker_processes 1; daemon off; pid $dir/nginx.pid; error_log $dir/error.log warn;"
    echo "events { worker_connections 4096; }"
    echo "http { access_log off; client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;"
    echo "  fastcgi_temp_path $dir/fcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;"
    echo "  keepalive_requests 1000000;"
    for i in "$@"; do
      echo "  server { listen 127.0.0.1:$((BACKEND_BASE + i));"
      echo "    location /healthz { return 200 'ok'; }"
      echo "    location / { add_header x-replica k$i; default_type application/json;"
      echo "      return 200 '{\"replica\":\"k$i\",\"tracking\":\"1\",\"ok\":true,\"n\":12345}'; } }"
    done
    echo "}"
  } > "$dir/nginx.conf"
  nginx -c "$dir/nginx.conf" -p "$dir" >>"$dir/nginx.log" 2>&1 &
  NGINX_STATIC_PID=$!; PIDS+=($NGINX_STATIC_PID)
  for i in "$@"; do wait_port $((BACKEND_BASE + i)); done
}
# cpu_ticks PID: user + system clock ticks of a process and its threads (children of nginx too).
cpu_ticks() { local t=0 p; for p in $1 $(pgrep -P "$1" || true); do t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat))); done; echo $t; }
stop_pid() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# haproxy THREADS BALANCE N: configured as its users do: keep-alive to the servers (http-reuse),
# health checks, retries with redispatch.
HAPROXY_PID=""
haproxy_start() {
  need haproxy
  local cfg="$OUT/haproxy.cfg"
  {
    echo "global"
    echo "  nbthread $1"
    echo "  maxconn 8000"
    echo "defaults"
    echo "  mode http"
    echo "  timeout connect 1s"
    echo "  timeout client 30s"
    echo "  timeout server 30s"
    echo "  retries 3"
    echo "  option redispatch 1"
    echo "  retry-on conn-failure empty-response"
    echo "  http-reuse safe"
    echo "frontend fe"
    echo "  bind 127.0.0.1:$HAPROXY_PORT"
    echo "  default_backend be"
    echo "backend be"
    echo "  balance $2"
    echo "  option httpchk GET /healthz"
    for i in $(seq 1 "$3"); do echo "  server k$i 127.0.0.1:$((BACKEND_BASE + i)) check inter ${HAPROXY_INTER:-1s} fall 2 rise 2 maxconn 1000"; done
  } > "$cfg"
  haproxy -f "$cfg" -db >"$OUT/haproxy.log" 2>&1 &
  HAPROXY_PID=$!; PIDS+=($HAPROXY_PID)
  wait_port $HAPROXY_PORT
}

# haproxy_grpc_start THREADS: HAProxy in front of gRPC members k1..k3, HTTP/2 on both sides
# (proto h2), roundrobin: how its users proxy gRPC. HAPROXY_GRPC_SERVER (appended to each server
# line) and HAPROXY_GRPC_BACKEND (lines of the backend) add health checks and the like.
haproxy_grpc_start() {
  need haproxy
  cat > "$OUT/haproxy-grpc.cfg" <<CFG
global
  nbthread $1
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
frontend fe
  bind 127.0.0.1:$HAPROXY_PORT proto h2
  default_backend be
backend be
  balance roundrobin
${HAPROXY_GRPC_BACKEND:-}
$(for i in 1 2 3; do echo "  server k$i 127.0.0.1:$((BACKEND_BASE + i)) proto h2 ${HAPROXY_GRPC_SERVER:-}"; done)
CFG
  haproxy -f "$OUT/haproxy-grpc.cfg" -db >"$OUT/haproxy.log" 2>&1 &
  HAPROXY_PID=$!; PIDS+=($HAPROXY_PID)
  wait_port $HAPROXY_PORT
}

# nginx WORKERS METHOD N: upstream keepalive, HTTP/1.1 to the servers, passive max_fails.
NGINX_PID=""
nginx_start() {
  need nginx
  local dir="$OUT/nginx"; mkdir -p "$dir"
  cat > "$dir/nginx.conf" <<NGX
worker_processes $1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy; fastcgi_temp_path $dir/fcgi;
  uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
  upstream be {
    $2
$(for i in $(seq 1 "$3"); do echo "    server 127.0.0.1:$((BACKEND_BASE + i)) max_fails=1 fail_timeout=10s;"; done)
    keepalive 128;
  }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / {
      proxy_pass http://be;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
      proxy_connect_timeout 1s;
      proxy_next_upstream error timeout;
    }
  }
}
NGX
  nginx -c "$dir/nginx.conf" -p "$dir" >"$OUT/nginx.log" 2>&1 &
  NGINX_PID=$!; PIDS+=($NGINX_PID)
  wait_port $NGINX_PORT
}

loadgen() { # args for LoadGen
  "$JAVA" -Xmx512m -XX:+UseParallelGC -Dlogback.configurationFile="$BENCH/harness/logback.xml" -cp "$CP" \
    dev.replicapool.bench.LoadGen --host-header $HOSTHDR "$@"
}

# wrk_round TARGET PORT PID ROUND: one timed wrk run (DURATION, CONNS, Host $HOSTHDR) appended to
# $RES as a row of req/s, p50, p99, CPU per request of PID (and its children) and its RSS.
TICK_US=$((1000000 / $(getconf CLK_TCK)))
wrk_header() {
  need wrk
  echo -e "round\ttarget\treq_s\tp50_ms\tp99_ms\tcpu_us_per_req\trss_mib\tload1" > "$RES"
}
wrk_round() {
  local t0 t1 o rps p50 p99 n cpu rss
  t0=$(cpu_ticks "$3")
  o=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -H "Host: $HOSTHDR" "http://127.0.0.1:$2/track/1" 2>&1)
  t1=$(cpu_ticks "$3")
  rps=$(echo "$o" | awk '/Requests\/sec/{print $2}')
  n=$(echo "$o" | awk '/requests in/{print $1}')
  p50=$(echo "$o" | awk '$1=="50%"{print $2}'); p99=$(echo "$o" | awk '$1=="99%"{print $2}')
  cpu=$(awk -v d=$((t1 - t0)) -v n="$n" -v u="$TICK_US" 'BEGIN{printf "%.1f", d*u/n}')
  rss=$(awk '/VmRSS/{printf "%.0f", $2/1024}' /proc/$3/status)
  echo -e "$4\t$1\t$rps\t$p50\t$p99\t$cpu\t$rss\t$(loadavg | cut -d' ' -f1)" | tee -a "$RES"
  echo "$o" | grep -E "Non-2xx|Socket errors" && log "  $1: errors above" || true
}
# jit_ramp PORT SECONDS: req/s in each of a fresh JVM's first seconds under load (its warm-up),
# written to $OUT/ramp.txt and printed.
jit_ramp() {
  local ramp="" s
  for s in $(seq 1 "$2"); do
    ramp="$ramp $(wrk -t1 -c"$CONNS" -d1s -H "Host: $HOSTHDR" "http://127.0.0.1:$1/track/1" | awk '/Requests\/sec/{printf "%d", $2}')"
  done
  echo "$ramp" > "$OUT/ramp.txt"
  echo "$ramp"
}
# wrk_summary TARGET...: medians of the rounds in $RES per target, req/s also as a ratio to HAProxy.
wrk_summary() {
  python3 - "$RES" "$@" <<'PY' | tee -a "$OUT/log.txt"
import sys, csv, statistics as st
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
def ms(v):
    for unit, f in (('us', 0.001), ('ms', 1.0), ('s', 1000.0)):
        if v.endswith(unit):
            return float(v[:-len(unit)]) * f
    return float(v)
med = lambda x, k, f=float: st.median(f(r[k]) for r in rows if r['target'] == x)
h = med('haproxy', 'req_s')
print("target          req/s  / HAProxy  CPU us/req  p50 ms  p99 ms  RSS MiB   (medians of the rounds)")
for x in sys.argv[2:]:
    print(f"{x:13s} {med(x,'req_s'):>8,.0f}  {med(x,'req_s')/h:8.2f}x  {med(x,'cpu_us_per_req'):10.1f}"
          f"  {med(x,'p50_ms',ms):6.2f}  {med(x,'p99_ms',ms):6.2f}  {med(x,'rss_mib'):7.0f}")
PY
}

# alloc_per_request PID PORT: bytes the event loop threads of a JVM allocated per request forwarded,
# from JFR's per-thread allocation counters (a recording started with jcmd, so the process runs with
# its own flags), over one wrk run of DURATION seconds. Prints "bytes requests".
alloc_per_request() {
  local f="$OUT/alloc-$1.jfr" o n
  jcmd "$1" JFR.start name=alloc settings="${ALLOC_JFC:-$BENCH/lib/thread-alloc.jfc}" filename="$f" >/dev/null
  sleep 1.5 # one sample before the load
  o=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" -H "Host: $HOSTHDR" "http://127.0.0.1:$2/track/1" 2>&1)
  sleep 1.5 # and one after
  jcmd "$1" JFR.stop name=alloc >/dev/null
  n=$(echo "$o" | awk '/requests in/{print $1}')
  jfr print --json --events jdk.ThreadAllocationStatistics "$f" | python3 -c '
import json, sys
events = json.load(sys.stdin)["recording"]["events"]
seen = {}
for e in events:
    name = e["values"]["thread"]["javaName"] or ""
    if "eventloop" in name:
        a = e["values"]["allocated"]
        lo, hi = seen.get(name, (a, a))
        seen[name] = (min(lo, a), max(hi, a))
n = int(sys.argv[1])
total = sum(hi - lo for lo, hi in seen.values())
print(f"{total / n:.0f} {n}")' "$n"
}
