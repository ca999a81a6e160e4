package dev.replicapool.operator.probing;

import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.List;

/**
 * grpc.health.v1.Health/Check over HTTP/2 (prior knowledge in clear text, h2 by ALPN over TLS).
 * Passes on SERVING only; NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, a non-OK grpc-status (such as
 * UNIMPLEMENTED from a server without the health service) or a non-gRPC answer fail. The member is
 * told the deadline with grpc-timeout. The HTTP/2 connection is kept between probes.
 */
final class GrpcHealthChecker implements HealthChecker {
  static final String PATH = "/grpc.health.v1.Health/Check";

  private static final List<String> STATUS_NAMES =
      List.of(
          "OK",
          "CANCELLED",
          "UNKNOWN",
          "INVALID_ARGUMENT",
          "DEADLINE_EXCEEDED",
          "NOT_FOUND",
          "ALREADY_EXISTS",
          "PERMISSION_DENIED",
          "RESOURCE_EXHAUSTED",
          "FAILED_PRECONDITION",
          "ABORTED",
          "OUT_OF_RANGE",
          "UNIMPLEMENTED",
          "INTERNAL",
          "UNAVAILABLE",
          "DATA_LOSS",
          "UNAUTHENTICATED");

  private final HttpMemberChecks checks;

  GrpcHealthChecker(ProbeClients clients, String userAgent) {
    this.checks = new HttpMemberChecks(clients, userAgent);
  }

  @Override
  public MemberCheck prepare(String host, int port, ProbeSpec spec, long timeoutMillis) {
    RequestOptions options =
        checks
            .target(host, port, spec)
            .setMethod(HttpMethod.POST)
            .setURI(PATH)
            .putHeader("content-type", "application/grpc")
            .putHeader("te", "trailers")
            .putHeader("grpc-timeout", timeoutMillis + "m")
            .putHeader("user-agent", checks.userAgent());
    Buffer body = GrpcHealthMessages.request(spec.grpcService());
    return checks.prepare(spec, options, req -> req.send(body), GrpcHealthChecker::read);
  }

  private static void read(HttpClientResponse resp, Handler<CheckOutcome> done) {
    int code = resp.statusCode();
    resp.body()
        .onComplete(
            b -> {
              if (b.failed()) {
                done.handle(CheckOutcome.brokenResponse(code, b.cause()));
                return;
              }
              // The load report may come as a trailer (as grpc-java's ORCA sends it) or header.
              done.handle(
                  judge(code, resp.headers(), resp.trailers(), b.result())
                      .withUtilization(
                          HttpMemberChecks.utilization(resp.trailers(), resp.headers())));
            });
  }

  /** The outcome of a complete response: HTTP status, headers, trailers and body. */
  static CheckOutcome judge(int code, MultiMap headers, MultiMap trailers, Buffer body) {
    if (code != 200) {
      return CheckOutcome.failed(
          code, ProbeCause.HTTP_STATUS, "HTTP " + code + ", not a gRPC response", true);
    }
    // A "Trailers-Only" answer carries grpc-status in its headers.
    String status = trailers.get("grpc-status");
    String message = trailers.get("grpc-message");
    if (status == null) {
      status = headers.get("grpc-status");
      message = headers.get("grpc-message");
    }
    if (status == null) {
      return CheckOutcome.failed(
          code, ProbeCause.GRPC_STATUS, "gRPC response without grpc-status", true);
    }
    if (!status.equals("0")) {
      return CheckOutcome.failed(
          code, ProbeCause.GRPC_STATUS, "gRPC " + statusName(status) + describe(message), true);
    }
    int serving;
    try {
      serving = GrpcHealthMessages.servingStatus(body);
    } catch (IllegalArgumentException e) {
      return CheckOutcome.failed(
          code, ProbeCause.GRPC_STATUS, "gRPC health: " + e.getMessage(), true);
    }
    if (serving == GrpcHealthMessages.SERVING) {
      return CheckOutcome.passed(code, true);
    }
    // "gRPC NOT_SERVING", "gRPC SERVICE_UNKNOWN": the health status in grpc.health.v1's words;
    // its UNKNOWN would read as the grpc-status UNKNOWN, so that one says "health".
    String name = GrpcHealthMessages.name(serving);
    return CheckOutcome.failed(
        code,
        ProbeCause.GRPC_STATUS,
        name.equals("UNKNOWN") ? "gRPC health UNKNOWN" : "gRPC " + name,
        true);
  }

  private static String statusName(String status) {
    try {
      int n = Integer.parseInt(status.trim());
      return n >= 0 && n < STATUS_NAMES.size() ? STATUS_NAMES.get(n) : "status " + n;
    } catch (NumberFormatException e) {
      return "status " + status;
    }
  }

  private static String describe(String message) {
    return message == null || message.isBlank() ? "" : ": " + message;
  }
}
