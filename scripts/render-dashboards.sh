#!/usr/bin/env bash
# Pictures of the Grafana dashboards (manifests/components/monitoring/dashboards) drawn from a real
# Prometheus scraping the local run under traffic, into docs/dashboard-*.png:
#   1. scripts/run-local.sh, unless its data plane already answers on 127.0.0.1:9901;
#   2. scripts/prometheus-local.sh: Debian's prometheus on 127.0.0.1:19090 scraping the operator
#      and the data plane every 5 s, with the Component's alert rules loaded;
#   3. MINUTES of traffic (default 5) to the tracking and adaptive pools, about 40 requests a second,
#      with the members' faults in thirds: k2 made slow (300 ms), then k3 answering half its
#      requests with 500, then both reset;
#   4. scripts/render_dashboards.py over the window (gnuplot draws: apt-get install gnuplot-nox).
# Everything it started is stopped at the end.
#   scripts/render-dashboards.sh [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-5}
say() { printf '[render-dashboards] %s\n' "$*" >&2; }
command -v gnuplot >/dev/null || { say "needs gnuplot: apt-get install gnuplot-nox"; exit 1; }
command -v prometheus >/dev/null || scripts/ensure-tools.sh
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! curl -sf http://127.0.0.1:9901/healthz >/dev/null; then
  say "starting scripts/run-local.sh (log: $work/run-local.log)"
  scripts/run-local.sh > "$work/run-local.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    curl -sf http://127.0.0.1:9901/readyz >/dev/null && break
    sleep 1
  done
  curl -sf http://127.0.0.1:9901/readyz >/dev/null || { say "the local run did not start: $work/run-local.log"; tail -20 "$work/run-local.log"; exit 1; }
fi

scripts/prometheus-local.sh "$work/prometheus" > "$work/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:19090/-/ready >/dev/null && break; sleep 0.5; done

# About 40 requests a second, two pools, one client; the faults in thirds of the window.
python3 - "$MINUTES" <<'PY' &
import sys, time, urllib.request
end = time.time() + float(sys.argv[1]) * 60
n = 0
while time.time() < end:
    for host in ("tracking.local", "adaptive.local"):
        req = urllib.request.Request(f"http://127.0.0.1:8080/track/{n}", headers={"Host": host})
        try:
            urllib.request.urlopen(req, timeout=5).read()
        except Exception:
            pass  # a 5xx is part of the picture
        n += 1
    time.sleep(0.05)
PY
pids+=($!)
admin() { curl -s -X POST "http://127.0.0.1:$1/admin/$2" >/dev/null || true; }
third=$(python3 -c "print(int($MINUTES * 20))")
say "traffic for $MINUTES min: steady, then k2 slow, then k3 failing half its requests"
sleep "$third"; admin 18082 'slow?ms=300'
sleep "$third"; admin 18083 'errors?rate=0.5'
sleep "$third"; admin 18082 reset; admin 18083 reset
sleep 10 # the last scrape
python3 scripts/render_dashboards.py --prometheus http://127.0.0.1:19090 --minutes "$MINUTES" \
  --rate-interval 20s --out docs
say "written: docs/dashboard-*.png"
