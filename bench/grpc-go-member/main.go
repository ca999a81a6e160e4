// A gRPC member as grpc-go users write one: the standard health service on h2c, nothing else.
// bench/proxy/grpc.sh runs three of these with MEMBERS=go, the members the gRPC comparison of the
// speed issue was first measured against (ghz calling grpc.health.v1.Health/Check).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "host:port to serve on")
	flag.Parse()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("listen %s: %v", *addr, err)
	}
	server := grpc.NewServer()
	healthpb.RegisterHealthServer(server, health.NewServer()) // "" is SERVING from the start
	fmt.Printf("grpc-go member listening on %s\n", lis.Addr())
	if err := server.Serve(lis); err != nil {
		log.Fatal(err)
	}
}
