package dev.replicapool.operator.probing;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A real grpc-java server on 127.0.0.1 with the standard grpc.health.v1 service
 * (HealthStatusManager), in clear text or TLS (optionally requiring a client certificate).
 */
public final class GrpcHealthServer implements AutoCloseable {
  private static final io.grpc.Metadata.Key<String> LOAD =
      io.grpc.Metadata.Key.of("endpoint-load-metrics", io.grpc.Metadata.ASCII_STRING_MARSHALLER);

  private final HealthStatusManager health = new HealthStatusManager();
  private final Server server;

  /** The {@code endpoint-load-metrics} trailer each answer carries; null for none. */
  private volatile String loadTrailer;

  private GrpcHealthServer(ServerCredentials credentials, boolean withHealth) {
    var builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), credentials);
    if (withHealth) {
      builder.addService(
          io.grpc.ServerInterceptors.intercept(
              health.getHealthService(),
              new io.grpc.ServerInterceptor() {
                @Override
                public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(
                    io.grpc.ServerCall<Q, A> call,
                    io.grpc.Metadata headers,
                    io.grpc.ServerCallHandler<Q, A> next) {
                  return next.startCall(
                      new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                        @Override
                        public void close(io.grpc.Status status, io.grpc.Metadata trailers) {
                          String load = loadTrailer;
                          if (load != null) {
                            trailers.put(LOAD, load);
                          }
                          super.close(status, trailers);
                        }
                      },
                      headers);
                }
              }));
    }
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Clear text (h2c), the whole server SERVING. */
  public static GrpcHealthServer plain() {
    return new GrpcHealthServer(InsecureServerCredentials.create(), true);
  }

  /** Clear text without any health service: every Check is UNIMPLEMENTED. */
  static GrpcHealthServer withoutHealthService() {
    return new GrpcHealthServer(InsecureServerCredentials.create(), false);
  }

  /** TLS with this certificate and key, no client certificate asked for. */
  public static GrpcHealthServer tls(java.nio.file.Path cert, java.nio.file.Path key)
      throws IOException {
    return new GrpcHealthServer(
        TlsServerCredentials.newBuilder().keyManager(cert.toFile(), key.toFile()).build(), true);
  }

  /** TLS with the test certificates; with {@code requireClientCert}, mutual TLS. */
  public static GrpcHealthServer tls(TestCertificates certs, boolean requireClientCert)
      throws IOException {
    TlsServerCredentials.Builder b =
        TlsServerCredentials.newBuilder()
            .keyManager(certs.serverCert.toFile(), certs.serverKey.toFile());
    if (requireClientCert) {
      b.trustManager(certs.caCert.toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return new GrpcHealthServer(b.build(), true);
  }

  public int port() {
    return server.getPort();
  }

  /** Sets the status of a service; "" is the whole server. */
  public void set(String service, ServingStatus status) {
    health.setStatus(service, status);
  }

  /** Each answer carries {@code endpoint-load-metrics: value} as a trailer (null: none). */
  public void loadTrailer(String value) {
    loadTrailer = value;
  }

  public void serving(boolean serving) {
    set(
        HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
        serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
