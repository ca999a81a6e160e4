package dev.replicapool.operator.probing;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** One prober's {@link HealthChecker} of each {@link HealthCheckType}, on shared clients. */
final class Checkers {
  // The same address in two pools shares a connection, one probe after the other.
  private final ProbeClients clients;
  private final HttpHealthChecker http;
  private final GrpcHealthChecker grpc;
  private final TcpHealthChecker tcp;

  Checkers(Vertx vertx, String userAgent) {
    this.clients = new ProbeClients(vertx);
    this.http = new HttpHealthChecker(clients, userAgent);
    this.grpc = new GrpcHealthChecker(clients, userAgent);
    this.tcp = new TcpHealthChecker(vertx);
  }

  HealthChecker of(HealthCheckType type) {
    return switch (type) {
      case HTTP -> http;
      case GRPC -> grpc;
      case TCP -> tcp;
    };
  }

  ProbeClients clients() {
    return clients;
  }

  /** Closes the clients and their connections. */
  Future<Void> close() {
    return Future.join(clients.close(), tcp.close()).mapEmpty();
  }
}
