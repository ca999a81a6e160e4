package dev.replicapool.operator.probing;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.probing.ProbeSpec.StatusRange;
import dev.replicapool.operator.probing.ProbeSpec.Transport;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs single checks of a checker on one Vert.x context, as the prober does. */
final class Checks {
  final Vertx vertx;
  final Context context;
  final ProbeClients clients;

  Checks(Vertx vertx) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.clients = new ProbeClients(vertx);
  }

  CheckOutcome run(HealthChecker checker, int port, ProbeSpec spec) throws Exception {
    return run(checker, "127.0.0.1", port, spec, 2_000);
  }

  CheckOutcome run(HealthChecker checker, String host, int port, ProbeSpec spec, long timeout)
      throws Exception {
    CompletableFuture<CheckOutcome> result = new CompletableFuture<>();
    context.runOnContext(v -> checker.prepare(host, port, spec, timeout).start(result::complete));
    // Checkers have no timeout of their own (the prober's is theirs); a first TLS handshake in a
    // cold JVM on a loaded machine took over 7 s, so the wait leaves ample room.
    return result.get(timeout + 30_000, TimeUnit.MILLISECONDS);
  }

  static ProbeSpec spec(
      HealthCheckType type,
      Transport transport,
      UpstreamTlsMaterial tls,
      String authority,
      String grpcService,
      List<StatusRange> statuses) {
    return new ProbeSpec(type, "/ok", null, authority, grpcService, statuses, transport, tls);
  }

  static ProbeSpec grpc(Transport transport, UpstreamTlsMaterial tls, String service) {
    return spec(HealthCheckType.GRPC, transport, tls, null, service, null);
  }

  void close() throws Exception {
    clients.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }
}
