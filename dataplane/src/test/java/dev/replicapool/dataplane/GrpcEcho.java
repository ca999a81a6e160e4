package dev.replicapool.dataplane;

import dev.replicapool.replica.Utf8Marshaller;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real grpc-java server with one method of each kind, speaking plain strings ({@link
 * Utf8Marshaller}, no protoc needed): every answer starts with the server's name, so a test sees
 * which member took an RPC.
 */
final class GrpcEcho {
  static final MethodDescriptor<String, String> UNARY =
      method("Unary", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> CLIENT_STREAM =
      method("ClientStream", MethodDescriptor.MethodType.CLIENT_STREAMING);
  static final MethodDescriptor<String, String> SERVER_STREAM =
      method("ServerStream", MethodDescriptor.MethodType.SERVER_STREAMING);
  static final MethodDescriptor<String, String> BIDI =
      method("Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);
  static final MethodDescriptor<String, String> FAIL =
      method("Fail", MethodDescriptor.MethodType.UNARY);

  private static MethodDescriptor<String, String> method(
      String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder(
            Utf8Marshaller.INSTANCE, Utf8Marshaller.INSTANCE)
        .setFullMethodName("replicapool.test.Echo/" + name)
        .setType(type)
        .build();
  }

  final String name;
  final Server server;

  /** The request message of every unary call this server took, in order. */
  final List<String> unaryReceived = new CopyOnWriteArrayList<>();

  /** How long a unary call waits before its answer (a stalled member), 0 for none. */
  volatile long unaryDelayMillis;

  /** Every client stream this server read to its end, its messages joined. */
  final List<String> clientStreamsReceived = new CopyOnWriteArrayList<>();

  /** How long a client-streaming call waits after its last message before its answer. */
  volatile long clientStreamDelayMillis;

  /** Unary calls whose caller cancelled them while they waited. */
  final AtomicInteger cancelled = new AtomicInteger();

  private final ScheduledExecutorService delays = Executors.newSingleThreadScheduledExecutor();

  GrpcEcho(String name) throws IOException {
    this.name = name;
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("replicapool.test.Echo")
            .addMethod(
                UNARY,
                ServerCalls.asyncUnaryCall(
                    (req, out) -> {
                      unaryReceived.add(req);
                      long delay = unaryDelayMillis;
                      if (delay == 0) {
                        out.onNext(name + ":" + req);
                        out.onCompleted();
                        return;
                      }
                      ServerCallStreamObserver<String> call =
                          (ServerCallStreamObserver<String>) out;
                      call.setOnCancelHandler(cancelled::incrementAndGet);
                      delays.schedule(
                          () -> {
                            if (!call.isCancelled()) {
                              call.onNext(name + ":" + req);
                              call.onCompleted();
                            }
                          },
                          delay,
                          TimeUnit.MILLISECONDS);
                    }))
            .addMethod(
                CLIENT_STREAM,
                ServerCalls.asyncClientStreamingCall(
                    (StreamObserver<String> out) ->
                        new StreamObserver<String>() {
                          final StringBuilder all = new StringBuilder();

                          @Override
                          public void onNext(String v) {
                            all.append(v);
                          }

                          @Override
                          public void onError(Throwable t) {}

                          @Override
                          public void onCompleted() {
                            clientStreamsReceived.add(all.toString());
                            delays.schedule(
                                () -> {
                                  out.onNext(name + ":" + all);
                                  out.onCompleted();
                                },
                                clientStreamDelayMillis,
                                TimeUnit.MILLISECONDS);
                          }
                        }))
            .addMethod(
                SERVER_STREAM,
                ServerCalls.asyncServerStreamingCall(
                    (req, out) -> {
                      int n = Integer.parseInt(req);
                      for (int i = 0; i < n; i++) {
                        out.onNext(name + ":" + i);
                      }
                      out.onCompleted();
                    }))
            .addMethod(
                BIDI,
                ServerCalls.asyncBidiStreamingCall(
                    (StreamObserver<String> out) ->
                        new StreamObserver<String>() {
                          @Override
                          public void onNext(String v) {
                            out.onNext(name + ":" + v);
                          }

                          @Override
                          public void onError(Throwable t) {}

                          @Override
                          public void onCompleted() {
                            out.onCompleted();
                          }
                        }))
            .addMethod(
                FAIL,
                ServerCalls.asyncUnaryCall(
                    (req, out) ->
                        out.onError(
                            Status.UNAVAILABLE
                                .withDescription(name + " is unavailable")
                                .asRuntimeException())))
            .build();
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service)
            .build()
            .start();
  }

  int port() {
    return server.getPort();
  }

  void stop() {
    server.shutdownNow();
    delays.shutdownNow();
  }

  static String unary(Channel ch, String msg) {
    return ClientCalls.blockingUnaryCall(ch, UNARY, CallOptions.DEFAULT, msg);
  }

  static Iterator<String> serverStream(Channel ch, int n) {
    return ClientCalls.blockingServerStreamingCall(
        ch, SERVER_STREAM, CallOptions.DEFAULT, String.valueOf(n));
  }
}
