// etcd as its release builds it: the server module's etcdmain, built by scripts/build-kind-node-image.sh
// from the Go module proxy (Debian's etcd 3.4 has no /readyz, which kubeadm's probes ask for).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
