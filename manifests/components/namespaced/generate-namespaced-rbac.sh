#!/usr/bin/env sh
# Writes the two files of the namespaced Component for a comma-separated list of namespaces:
# watched-namespaces.yaml (a Role and a RoleBinding per namespace, with the rules of the base's
# ClusterRole replicapool-operator, read from ../../rbac.yaml so that the two never differ) and
# operator-namespaces.yaml (the operator's --namespaces flag).
#   manifests/components/namespaced/generate-namespaced-rbac.sh shop,payments
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
list=${1:-}
if [ -z "$list" ]; then
  echo "usage: $0 NAMESPACE[,NAMESPACE...]" >&2
  exit 2
fi
operator_namespace=${OPERATOR_NAMESPACE:-replicapool-system}
# The rules of the ClusterRole replicapool-operator in the base, comments included.
rules=$(awk '
  /^kind: ClusterRole$/ { kind = 1; next }
  kind && /^  name: replicapool-operator$/ { grab = 1; kind = 0; next }
  /^---/ { if (grab) exit; kind = 0 }
  grab && /^rules:/ { inrules = 1; next }
  grab && inrules { print }
' "$dir/../../rbac.yaml")
if [ -z "$rules" ]; then
  echo "no rules of ClusterRole replicapool-operator found in $dir/../../rbac.yaml" >&2
  exit 1
fi
out="$dir/watched-namespaces.yaml.tmp"
: > "$out"
for ns in $(printf '%s' "$list" | tr ',' ' '); do
  if ! printf '%s' "$ns" | grep -Eq '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'; then
    echo "not a namespace name: $ns" >&2
    rm -f "$out"
    exit 2
  fi
  case "$ns" in
    kube-node-lease|kube-system|kube-public)
      echo "refusing to grant the operator access to $ns" >&2
      rm -f "$out"
      exit 2
      ;;
  esac
  cat >> "$out" <<YAML
# The operator's rights in namespace $ns: the base ClusterRole's rules (docs/INSTALL.md).
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: replicapool-operator
  namespace: $ns
rules:
$rules
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: replicapool-operator
  namespace: $ns
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: replicapool-operator
subjects:
  - kind: ServiceAccount
    name: replicapool-operator
    namespace: $operator_namespace
---
YAML
done
mv "$out" "$dir/watched-namespaces.yaml"
cat > "$dir/operator-namespaces.yaml" <<YAML
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --namespaces=$list
YAML
echo "wrote $dir/watched-namespaces.yaml and operator-namespaces.yaml for: $list"
