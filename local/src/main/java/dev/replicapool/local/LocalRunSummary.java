package dev.replicapool.local;

import dev.replicapool.testing.ReplicaProcess;
import java.nio.file.Path;
import java.util.List;

/** What the local run prints once everything is up: where to look and what to try. */
final class LocalRunSummary {
  private LocalRunSummary() {}

  static void print(
      double readySeconds,
      Path kubeconfig,
      String namespace,
      int trafficPort,
      int adminPort,
      int operatorAdmin,
      List<ReplicaProcess> replicas) {
    String ns = "default".equals(namespace) ? "" : " -n " + namespace;
    System.out.printf(
        """

        ReplicaPool runs locally (ready in %.1f s). In another terminal:

          export KUBECONFIG=%s
          kubectl get rp%s
          kubectl describe rp tracking%s
          kubectl wait --for=condition=Ready rp/tracking%s
          kubectl explain replicapool.spec.healthCheck

        Send traffic through the data plane:
          curl -si -H 'Host: tracking.local' http://127.0.0.1:%d/track/42     # round-robin over k1-k3
          curl -si http://127.0.0.1:18080/track/42                            # adaptive pool, dedicated port
          curl -si -H 'Host: registry.local' http://127.0.0.1:%d/track/42     # lease-registered r1, r2

        """,
        readySeconds, kubeconfig, ns, ns, ns, trafficPort, trafficPort);
    printGrpcAndAdminHints(adminPort, operatorAdmin);
    printFaultHints(replicas.get(1));
  }

  private static void printGrpcAndAdminHints(int adminPort, int operatorAdmin) {
    System.out.printf(
        """
        gRPC (pool "grpc": k1-k3 on 127.0.0.1:18101-18103, data-plane port %d, checked with
        grpc.health.v1.Health/Check; balanced per RPC over one connection):
          grpcurl -plaintext 127.0.0.1:%d grpc.health.v1.Health/Check                      # through the data plane
          grpcurl -plaintext -d '{"service":"replicapool.sample.Tracking"}' 127.0.0.1:18101 grpc.health.v1.Health/Check
          grpc-health-probe -addr 127.0.0.1:18102                                           # one member directly
          curl -X POST http://127.0.0.1:18082/admin/unhealthy        # k2's gRPC health turns NOT_SERVING too: Unhealthy in pool grpc
          # replicapool.sample.Tracking/Track (UTF-8 id in, /track JSON out) answers with the
          # replica's name; call it from grpc-java with a byte marshaller, see sample-replica --help.
        Data plane admin:  http://127.0.0.1:%d/status   http://127.0.0.1:%d/metrics
        Operator admin:    http://127.0.0.1:%d/metrics

        """,
        LocalRunMain.GRPC_ROUTE_PORT,
        LocalRunMain.GRPC_ROUTE_PORT,
        adminPort,
        adminPort,
        operatorAdmin);
  }

  private static void printFaultHints(ReplicaProcess k2) {
    System.out.printf(
        """
        Break something and watch `kubectl get rp -w`:
          curl -X POST 'http://127.0.0.1:18082/admin/slow?ms=150'     # k2 goes slow: Degraded, weight drops to the minimum
          curl -X POST 'http://127.0.0.1:18082/admin/slow?ms=500'     # slower than the probe timeout: Unhealthy, no traffic
          curl -X POST 'http://127.0.0.1:18082/admin/errors?rate=0.5' # k2 fails half its requests
          curl -X POST  http://127.0.0.1:18082/admin/reset             # k2 recovers
          curl -X POST 'http://127.0.0.1:18083/admin/capacity?busy=7'  # k3's batch job takes 7 of 8 workers: Degraded (saturated) in pool adaptive
          curl -X POST 'http://127.0.0.1:18083/admin/capacity?busy=4'  # back to half busy
          kill -9 %d                                                  # k2 dies (pid of k2)
          curl -X POST  http://127.0.0.1:18091/admin/unhealthy        # r1 reports itself unhealthy

        Logs of the replicas: target/replica-logs/. Ctrl-C stops everything.
        """,
        k2.pid());
  }
}
