#!/usr/bin/env bash
# Items 2, 3 and 4 of issue 6, open-loop load (LoadGen) through each proxy, 2 proxy threads:
#   kill    a member SIGKILLed under RATE req/s (default 2000): failed requests per proxy
#   freeze  a member SIGSTOPped for 3 s, then SIGCONT: p50/p99/p99.9 and failures per proxy
#   slow    one of 5 members 200 ms slower, then answering 500 to 20 %: pool latency and the
#           member's share for data plane RoundRobin / Adaptive, HAProxy leastconn, nginx least_conn
#   bench/faults/run.sh [kill] [freeze] [slow]      (default: all three)   ROUNDS=1 RATE=2000
#   ONLY=haproxy bench/faults/run.sh kill           (kill/freeze runs of matching proxies only)
# One data-plane process serves every run, warmed up once; each run publishes a fresh pool (new
# name and Host) so no run inherits another's ejections or latency history. HAProxy and nginx are
# started fresh for each run. Targets are taken in rotating order.
source "$(dirname "$0")/../lib/common.sh"
MODES=${*:-kill freeze slow}; ROUNDS=${ROUNDS:-1}; RATE=${RATE:-2000}; T=${THREADS:-2}
RES="$OUT/faults.jsonl"
log "machine: $(machine)"
backends 5
cptool
dataplane "$T"
publish RoundRobin 3 warm
log "warming the data plane up (15 s at $RATE req/s)"
loadgen --port $DP_PORT --host-header $HOSTHDR --rate "$RATE" --duration 15 --label warmup >/dev/null
RUN=0

proxy_up() { # target policy members -> sets PORT_ and HOST_
  RUN=$((RUN + 1)); HOST_=$HOSTHDR
  case $1 in
    dataplane) HOST_="run$RUN.$HOSTHDR"; publish "$2" "$3" "run$RUN" "$HOST_"; PORT_=$DP_PORT ;;
    haproxy) haproxy_start "$T" "$2" "$3"; PORT_=$HAPROXY_PORT; sleep 2.5 ;;
    nginx) nginx_start "$T" "$2" "$3"; PORT_=$NGINX_PORT ;;
  esac
}
proxy_down() { case $1 in haproxy) stop_pid "$HAPROXY_PID" ;; nginx) stop_pid "$NGINX_PID" ;; esac; }
ensure_k2() {
  if ! (exec 3<>/dev/tcp/127.0.0.1/$((BACKEND_BASE + 2))) 2>/dev/null; then
    backend k2 $((BACKEND_BASE + 2))
    # a fresh JVM answers its first requests slowly; warm it so that HAProxy's first checks pass
    for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$((BACKEND_BASE + 2))/healthz"; done
  fi
  admin 2 reset
}

fault_run() { # mode target policy
  ensure_k2; proxy_up "$2" "$3" 3
  local label="$1 $2/$3 rate=$RATE load=$(loadavg | cut -d' ' -f1)"
  loadgen --port "$PORT_" --host-header "$HOST_" --rate "$RATE" --duration 12 --warmup 4 --conns 256 \
    --label "$label" --out "$RES" &
  local lg=$!
  sleep 7
  local pid=${BACKEND_PID[$((BACKEND_BASE + 2))]}
  if [ "$1" = kill ]; then kill -9 "$pid"; else kill -STOP "$pid"; sleep 3; kill -CONT "$pid"; fi
  wait $lg
  proxy_down "$2"
}

for mode in $MODES; do
  case $mode in
    kill|freeze)
      log "== $mode: k2 of 3 members at t=3 s of a 12 s measured run (after 4 s warm-up), $RATE req/s"
      L=("dataplane RoundRobin" "dataplane Adaptive" "haproxy roundrobin" "nginx -")
      for r in $(seq 1 "$ROUNDS"); do
        for i in 0 1 2 3; do
          set -- ${L[$(( (i + r - 1) % 4 ))]}
          [[ "$1" =~ ${ONLY:-.} ]] || continue
          pol=$2; [ "$1" = nginx ] && pol=""
          fault_run "$mode" "$1" "$pol"
        done
      done ;;
    slow)
      SRATE=${SLOW_RATE:-1000}
      log "== slow: k5 of 5 members, phases healthy / +200 ms / 20 % errors, $SRATE req/s, 8 s each"
      L=("dataplane RoundRobin" "dataplane Adaptive" "haproxy leastconn" "nginx least_conn;")
      for r in $(seq 1 "$ROUNDS"); do
        for i in 0 1 2 3; do
          set -- ${L[$(( (i + r - 1) % 4 ))]}
          for k in 1 2 3 4 5; do admin $k reset; done
          proxy_up "$1" "$2" 5
          for phase in healthy slow errors; do
            case $phase in slow) admin 5 "slow?ms=200" ;; errors) admin 5 reset; admin 5 "errors?rate=0.2" ;; esac
            loadgen --port "$PORT_" --host-header "$HOST_" --rate "$SRATE" --duration 8 --warmup 2 --conns 256 \
              --label "slow $1/${2%;} phase=$phase load=$(loadavg | cut -d' ' -f1)" --out "$RES"
          done
          admin 5 reset
          proxy_down "$1"
        done
      done ;;
  esac
done
log "results: $RES"
