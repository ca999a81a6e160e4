#!/usr/bin/env bash
# Debian's Prometheus scraping the local run (scripts/run-local.sh: the operator on 127.0.0.1:8090,
# the data plane on 127.0.0.1:9901) every 5 s, with the alert rules of the monitoring Component
# loaded, on http://127.0.0.1:19090 (Alerts, Graph). Runs until Ctrl-C; its data goes with it.
#   scripts/prometheus-local.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v prometheus >/dev/null || scripts/ensure-tools.sh
dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
# The PrometheusRule's spec is a plain rules file once its groups are taken out.
python3 - manifests/components/monitoring/prometheusrule.yaml "$dir/rules.yml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
yaml.safe_dump({"groups": doc["spec"]["groups"]}, open(sys.argv[2], "w"))
PY
# Each target labelled pod, as the Component's PodMonitors label theirs (the dashboards use it).
cat > "$dir/prometheus.yml" <<YAML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: [$dir/rules.yml]
scrape_configs:
  - job_name: replicapool-operator
    static_configs: [{targets: ['127.0.0.1:8090'], labels: {pod: operator}}]
  - job_name: replicapool-dataplane
    static_configs: [{targets: ['127.0.0.1:9901'], labels: {pod: dataplane}}]
YAML
echo "[prometheus-local] http://127.0.0.1:19090 (config and data in $dir)" >&2
exec prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address=127.0.0.1:19090
