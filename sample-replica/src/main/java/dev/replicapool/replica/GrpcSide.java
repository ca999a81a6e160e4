package dev.replicapool.replica;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The replica's optional gRPC server (grpc-java, h2c): the standard grpc.health.v1 service, whose
 * whole-server status follows the replica's health flag (/admin/unhealthy makes it NOT_SERVING),
 * server reflection (so grpcurl can call the health service), and {@link #TRACK}, a unary method
 * answering with the replica's name, slowed and failed (UNAVAILABLE) as /admin/ says. With a
 * capacity ({@code --workers}), a call holds a worker as an HTTP request does, and every call's
 * trailers carry the replica's load report.
 */
final class GrpcSide implements AutoCloseable {
  /** Service of {@link #TRACK}. */
  static final String SERVICE = "replicapool.sample.Tracking";

  /**
   * {@code replicapool.sample.Tracking/Track}: the request is a tracking id in UTF-8, the answer
   * the same JSON as GET /track/&lt;id&gt;; no protobuf, so any client with a byte marshaller calls
   * it.
   */
  static final MethodDescriptor<String, String> TRACK =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Track"))
          .setRequestMarshaller(Utf8Marshaller.INSTANCE)
          .setResponseMarshaller(Utf8Marshaller.INSTANCE)
          .build();

  static final Metadata.Key<String> REPLICA_HEADER =
      Metadata.Key.of("x-replica", Metadata.ASCII_STRING_MARSHALLER);

  static final Metadata.Key<String> LOAD_METRICS =
      Metadata.Key.of("endpoint-load-metrics", Metadata.ASCII_STRING_MARSHALLER);

  private final HealthStatusManager health = new HealthStatusManager();
  private final ScheduledExecutorService delays =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sample-replica-grpc-delays");
            t.setDaemon(true);
            return t;
          });
  private final Server server;

  GrpcSide(String name, String host, int port, ReplicaState state, Random random) {
    ServerServiceDefinition tracking =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(
                TRACK,
                ServerCalls.asyncUnaryCall(
                    (String id, StreamObserver<String> reply) ->
                        track(name, id, state, random, reply)))
            .build();
    try {
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
              .addService(ServerInterceptors.intercept(tracking, answerMetadata(name, state)))
              .addService(
                  ServerInterceptors.intercept(
                      health.getHealthService(), answerMetadata(null, state)))
              .addService(ProtoReflectionServiceV1.newInstance())
              .build()
              .start();
    } catch (IOException e) {
      delays.shutdownNow();
      throw new UncheckedIOException(e);
    }
    Runnable follow =
        () ->
            health.setStatus(
                HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
                state.healthy() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    state.onHealthChange(follow);
    follow.run();
    health.setStatus(SERVICE, ServingStatus.SERVING);
    warmUp(host, server.getPort());
  }

  /**
   * A few health checks of itself through a real channel before the replica says it listens: a
   * fresh JVM answers its first gRPC calls in hundreds of milliseconds (class loading, JIT), which
   * would fail a health checker's first probes under a tight timeout.
   */
  private static void warmUp(String host, int port) {
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    try {
      var stub = HealthGrpc.newBlockingStub(channel);
      for (int i = 0; i < 20; i++) {
        stub.withDeadlineAfter(5, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
      }
    } catch (RuntimeException e) {
      // Only a warm-up: the server is up either way, and probes will tell.
    } finally {
      channel.shutdownNow();
    }
  }

  int port() {
    return server.getPort();
  }

  private void track(
      String name, String id, ReplicaState state, Random random, StreamObserver<String> reply) {
    Runnable answer =
        () -> {
          boolean fail = state.errorRate() > 0 && random.nextDouble() < state.errorRate();
          state.countServed(fail);
          if (fail) {
            reply.onError(
                Status.UNAVAILABLE.withDescription("injected error").asRuntimeException());
            return;
          }
          reply.onNext(
              "{\"replica\":"
                  + Json.string(name)
                  + ",\"id\":"
                  + Json.string(id)
                  + ",\"status\":\"in transit\"}");
          reply.onCompleted();
        };
    Capacity capacity = state.capacity();
    if (capacity != null) { // a worker, held serviceMs, as the HTTP side's requests take
      capacity.acquire(
          () ->
              delays.schedule(
                  () -> {
                    capacity.release();
                    answerAfterSlow(answer, state);
                  },
                  capacity.serviceMillis(),
                  TimeUnit.MILLISECONDS));
      return;
    }
    answerAfterSlow(answer, state);
  }

  private void answerAfterSlow(Runnable answer, ReplicaState state) {
    long slow = state.slowMillis();
    if (slow > 0) {
      delays.schedule(answer, slow, TimeUnit.MILLISECONDS);
    } else {
      answer.run();
    }
  }

  /**
   * What every answer carries: {@code x-replica} in the headers, as the HTTP side sends it (when
   * {@code name} is given), and with a capacity the replica's ORCA load report ({@code
   * endpoint-load-metrics}, the TEXT form the HTTP side sends as a header) in the trailers, health
   * checks included: the operator's gRPC probe and the data plane both read it there.
   */
  private static ServerInterceptor answerMetadata(String name, ReplicaState state) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        return next.startCall(
            new SimpleForwardingServerCall<>(call) {
              @Override
              public void sendHeaders(Metadata responseHeaders) {
                if (name != null) {
                  responseHeaders.put(REPLICA_HEADER, name);
                }
                super.sendHeaders(responseHeaders);
              }

              @Override
              public void close(Status status, Metadata trailers) {
                Capacity capacity = state.capacity();
                if (capacity != null && capacity.reports()) {
                  trailers.put(LOAD_METRICS, capacity.orcaText());
                }
                super.close(status, trailers);
              }
            },
            headers);
      }
    };
  }

  @Override
  public void close() {
    health.enterTerminalState();
    server.shutdownNow();
    delays.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
