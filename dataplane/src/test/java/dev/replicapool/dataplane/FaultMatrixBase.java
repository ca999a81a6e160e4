package dev.replicapool.dataplane;

import dev.replicapool.dataplane.CrashingMember.Seen;
import dev.replicapool.testing.OnEventLoop;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What the fault matrices ({@link ProtocolFaultMatrixIT}, {@link ProtocolFaultMatrix2IT}) share:
 * the client protocols, member protocols and requests of a cell, one control plane and data plane
 * for every cell, and how each client sends its cell's request and what it got.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FaultMatrixBase extends DataPlaneTestBase {
  enum Client {
    H1("HTTP/1.1"),
    H2("HTTP/2 prior knowledge"),
    GRPC("grpc-java");

    final String label;

    Client(String label) {
      this.label = label;
    }
  }

  enum Members {
    HTTP("http"),
    H2C("kubernetes.io/h2c");

    final String appProtocol;

    Members(String appProtocol) {
      this.appProtocol = appProtocol;
    }
  }

  enum Request {
    GET("GET"),
    POST_LENGTH("POST with content-length"),
    POST_NO_LENGTH("POST without content-length"),
    GRPC_UNARY("gRPC unary");

    final String label;

    Request(String label) {
      this.label = label;
    }
  }

  /** A matrix's fault, as a cell names it. */
  interface Fault {
    String label();
  }

  /**
   * One cell: a client, the members' protocol, the fault of the member picked first, a request, and
   * whether the pool names POST and the gRPC service idempotent ({@code named}).
   */
  record Cell<F extends Fault>(
      Client client, Members members, F fault, Request request, boolean named) {
    @Override
    public String toString() {
      return client.label
          + " -> "
          + members.appProtocol
          + " | "
          + fault.label()
          + " | "
          + request.label
          + " | "
          + (named ? "POST+gRPC named idempotent" : "default idempotency");
    }

    /** GET always; POST and the gRPC call only when the pool names them. */
    boolean idempotent() {
      return request == Request.GET || named;
    }

    /**
     * Every cell over {@code faults} that {@code applies} keeps: a gRPC client sends the gRPC call
     * and no other client does; GET is idempotent either way, so it is not named.
     */
    static <F extends Fault> Stream<Cell<F>> all(F[] faults, BiPredicate<F, Members> applies) {
      List<Cell<F>> all = new ArrayList<>();
      for (Client c : Client.values()) {
        for (Members m : Members.values()) {
          for (F f : faults) {
            if (!applies.test(f, m)) {
              continue;
            }
            for (Request r : Request.values()) {
              if ((c == Client.GRPC) != (r == Request.GRPC_UNARY)) {
                continue;
              }
              for (boolean named : new boolean[] {false, true}) {
                if (!(named && r == Request.GET)) {
                  all.add(new Cell<>(c, m, f, r, named));
                }
              }
            }
          }
        }
      }
      return all.stream();
    }
  }

  static final String ANSWERING = "answering";
  static final String GRPC_PATH = "/replicapool.test.Echo/Unary";

  final AtomicInteger cellNumber = new AtomicInteger();
  HttpClient h2;
  ManagedChannel channel;

  // One control plane and data plane for every cell (DataPlaneTestBase starts them per test).
  @Override
  void startControlPlane() {}

  @Override
  void stopAll() {}

  @BeforeAll
  void startShared() {
    super.startControlPlane();
    startDataPlane();
    h2 = h2PriorKnowledge(vertx);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort()).usePlaintext().build();
  }

  @AfterAll
  void stopShared() {
    channel.shutdownNow();
    h2.close().await();
    super.stopAll();
  }

  /** What the client got: an HTTP status and body, or a gRPC status and message. */
  record Outcome(String status, String body) {}

  // ---- the cell's request and what it should give --------------------------------------------

  /** A body of 3,000 bytes of every value, different for each cell. */
  static byte[] body(int n) {
    byte[] b = new byte[3_000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i * 31 + n);
    }
    return b;
  }

  /** The gRPC message: text, since the call uses {@code Utf8Marshaller}. */
  static String grpcMessage(int length) {
    return "x".repeat(length);
  }

  static String path(Request request) {
    return request == Request.GRPC_UNARY ? GRPC_PATH : "/matrix/" + request;
  }

  /** What a member that read the request records. */
  static Seen expectedSeen(Request request, byte[] body) {
    return switch (request) {
      case GET -> Seen.of("GET", path(request), new byte[0]);
      case POST_LENGTH, POST_NO_LENGTH -> Seen.of("POST", path(request), body);
      case GRPC_UNARY -> {
        byte[] msg = grpcMessage(body.length).getBytes(StandardCharsets.UTF_8);
        ByteBuffer framed = ByteBuffer.allocate(5 + msg.length);
        framed.put((byte) 0).putInt(msg.length).put(msg);
        yield Seen.of("POST", GRPC_PATH, framed.array());
      }
    };
  }

  static String okStatus(Client client) {
    return client == Client.GRPC ? "OK" : "200";
  }

  Outcome send(Client client, Request request, String host, byte[] body) throws Exception {
    return switch (client) {
      case H1 -> h1(request, host, body);
      case H2 -> h2(request, host, body);
      case GRPC -> grpc(host, body.length);
    };
  }

  Outcome h1(Request request, String host, byte[] body) throws IOException {
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      return h1(c, request, host, body);
    }
  }

  /** On a connection of the caller's, so that several requests can share it. */
  static Outcome h1(RawHttp c, Request request, String host, byte[] body) {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    String head = request.name().startsWith("POST") ? "POST " : "GET ";
    head += path(request) + " HTTP/1.1\r\nHost: " + host + "\r\n";
    switch (request) {
      case POST_LENGTH -> {
        raw.writeBytes(ascii(head + "Content-Length: " + body.length + "\r\n\r\n"));
        raw.writeBytes(body);
      }
      case POST_NO_LENGTH -> {
        raw.writeBytes(ascii(head + "Transfer-Encoding: chunked\r\n\r\n"));
        int half = body.length / 2;
        raw.writeBytes(ascii(Integer.toHexString(half) + "\r\n"));
        raw.write(body, 0, half);
        raw.writeBytes(ascii("\r\n" + Integer.toHexString(body.length - half) + "\r\n"));
        raw.write(body, half, body.length - half);
        raw.writeBytes(ascii("\r\n0\r\n\r\n"));
      }
      default -> raw.writeBytes(ascii(head + "\r\n"));
    }
    try {
      RawHttp.Response r = c.send(raw.toByteArray());
      return new Outcome(String.valueOf(r.status()), r.body());
    } catch (IOException | RuntimeException e) { // a truncated answer too
      return new Outcome("failed", String.valueOf(e));
    }
  }

  Outcome h2(Request request, String host, byte[] body) throws Exception {
    RequestOptions o =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(host)
            .setPort(80)
            .setMethod(request == Request.GET ? HttpMethod.GET : HttpMethod.POST)
            .setURI(path(request));
    int half = body.length / 2;
    return new OnEventLoop(vertx)
        .call(
            () ->
                h2.request(o)
                    .compose(
                        req -> {
                          switch (request) {
                            case POST_LENGTH -> {
                              req.putHeader("content-length", String.valueOf(body.length));
                              req.end(Buffer.buffer(body));
                            }
                            case POST_NO_LENGTH -> {
                              req.setChunked(true); // HTTP/2: DATA frames, no content-length
                              req.write(Buffer.buffer().appendBytes(body, 0, half));
                              req.end(Buffer.buffer().appendBytes(body, half, body.length - half));
                            }
                            default -> req.end();
                          }
                          return req.response();
                        })
                    .compose(
                        r ->
                            r.body()
                                .map(
                                    b -> new Outcome(String.valueOf(r.statusCode()), b.toString())))
                    .recover(
                        t ->
                            io.vertx.core.Future.succeededFuture(
                                new Outcome("failed", String.valueOf(t)))))
        .await(20, TimeUnit.SECONDS);
  }

  /** Over the class's one channel: each call names its cell's host as its authority. */
  Outcome grpc(String host, int length) {
    try {
      String answer =
          ClientCalls.blockingUnaryCall(
              channel,
              GrpcEcho.UNARY,
              CallOptions.DEFAULT.withAuthority(host).withDeadlineAfter(20, TimeUnit.SECONDS),
              grpcMessage(length));
      return new Outcome("OK", answer);
    } catch (StatusRuntimeException e) {
      return new Outcome(
          e.getStatus().getCode().name(), String.valueOf(e.getStatus().getDescription()));
    }
  }

  /** The reasons of the pool's retries so far ({@code replicapool_retries_total{reason}}). */
  List<String> retryReasons(String pool) throws Exception {
    List<String> reasons = new ArrayList<>();
    for (String l : adminGet("/metrics").body().lines().toList()) {
      if (l.startsWith("replicapool_retries_total{") && l.contains("pool=\"" + pool + "\"")) {
        int at = l.indexOf("reason=\"") + 8;
        double count = Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
        for (int i = 0; i < count; i++) {
          reasons.add(l.substring(at, l.indexOf('"', at)));
        }
      }
    }
    return reasons;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }
}
