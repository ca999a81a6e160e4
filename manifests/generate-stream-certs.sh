#!/usr/bin/env sh
# Writes the certificates for mutual TLS on the control-plane stream into
# manifests/components/mtls/ (gitignored), where that kustomize Component turns them into the
# Secrets replicapool-control-plane-tls (operator) and replicapool-dataplane-stream-tls (data
# planes). See manifests/components/mtls/kustomization.yaml and docs/INSTALL.md.
#   ca.crt ca.key          a CA of its own for the stream; ca.key signs and goes into no Secret
#   server.crt server.key  the operator's certificate: replicapool-control-plane.<ns>.svc
#                          and .svc.cluster.local
#   client.crt client.key  the data planes' client certificate (CN replicapool-dataplane)
# Keeps what exists unless asked:
#   manifests/generate-stream-certs.sh            # once, before the first apply
#   manifests/generate-stream-certs.sh --renew    # new server and client certificates, same CA
#   manifests/generate-stream-certs.sh --rotate   # new CA and new certificates
# After --renew or --rotate: apply -k again and restart both Deployments (certificates are read
# at start). REPLICAPOOL_NAMESPACE (default replicapool-system) is the namespace in the server
# certificate's names; CA_DAYS (3650) and CERT_DAYS (825) their validity.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)/components/mtls
ns=${REPLICAPOOL_NAMESPACE:-replicapool-system}
ca_days=${CA_DAYS:-3650}
cert_days=${CERT_DAYS:-825}
mode=${1:-}
case "$mode" in
  "" | --renew | --rotate) ;;
  *)
    echo "usage: $0 [--renew | --rotate]" >&2
    exit 2
    ;;
esac
if ! command -v openssl >/dev/null 2>&1; then
  echo "openssl is required" >&2
  exit 1
fi

if [ -z "$mode" ]; then
  missing=""
  for f in ca.crt ca.key server.crt server.key client.crt client.key; do
    [ -s "$dir/$f" ] || missing="$missing $f"
  done
  if [ -z "$missing" ]; then
    echo "stream certificates exist in $dir (use --renew or --rotate for new ones)"
    exit 0
  fi
fi

umask 077
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/openssl.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:replicapool-control-plane.$ns.svc, DNS:replicapool-control-plane.$ns.svc.cluster.local
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF

key() { # PKCS#8 EC P-256, what the JVM and Vert.x read
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
}

if [ "$mode" = --rotate ] || [ ! -s "$dir/ca.crt" ] || [ ! -s "$dir/ca.key" ]; then
  key "$tmp/ca.key"
  openssl req -x509 -new -config "$tmp/openssl.cnf" -extensions ca -key "$tmp/ca.key" \
    -subj "/O=ReplicaPool/CN=ReplicaPool control-plane stream CA" -days "$ca_days" -sha256 \
    -out "$tmp/ca.crt"
  echo "new CA"
else
  cp "$dir/ca.crt" "$dir/ca.key" "$tmp/"
fi

issue() { # name subject extensions
  key "$tmp/$1.key"
  openssl req -new -config "$tmp/openssl.cnf" -key "$tmp/$1.key" -subj "$2" -out "$tmp/$1.csr"
  openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days "$cert_days" -sha256 \
    -extfile "$tmp/openssl.cnf" -extensions "$3" -out "$tmp/$1.crt" 2>/dev/null
  openssl verify -CAfile "$tmp/ca.crt" "$tmp/$1.crt" >/dev/null
}
issue server "/O=ReplicaPool/CN=replicapool-control-plane.$ns.svc" server
issue client "/O=ReplicaPool/CN=replicapool-dataplane" client

mkdir -p "$dir"
for f in ca.crt ca.key server.crt server.key client.crt client.key; do
  mv "$tmp/$f" "$dir/$f.tmp"
done
for f in ca.crt ca.key server.crt server.key client.crt client.key; do
  mv "$dir/$f.tmp" "$dir/$f"
done
echo "wrote $dir: ca.crt ca.key server.crt server.key client.crt client.key"
echo "keep ca.key safe (it signs new certificates; no Pod needs it)"
