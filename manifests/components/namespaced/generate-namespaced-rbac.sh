#!/usr/bin/env sh
# Writes the two files of the namespaced Component for a comma-separated list of namespaces:
# watched-namespaces.yaml (a Role and a RoleBinding per namespace, the same rules as the base's
# ClusterRole) and operator-namespaces.yaml (the operator's --namespaces flag).
#   manifests/components/namespaced/generate-namespaced-rbac.sh shop,payments
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
list=${1:-}
if [ -z "$list" ]; then
  echo "usage: $0 NAMESPACE[,NAMESPACE...]" >&2
  exit 2
fi
operator_namespace=${OPERATOR_NAMESPACE:-replicapool-system}
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
# The operator's rights in namespace $ns (see docs/INSTALL.md for each rule).
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: replicapool-operator
  namespace: $ns
rules:
  - apiGroups: ["replicapool.dev"]
    resources: ["replicapools"]
    verbs: ["get", "list", "watch"]
  - apiGroups: ["replicapool.dev"]
    resources: ["replicapools/status"]
    verbs: ["get", "patch", "update"]
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", "list", "watch"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "list", "watch", "delete"]
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["list", "watch"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
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
