package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.dataplane.CrashingMember.Received;
import dev.replicapool.dataplane.H2Posts.Answer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What members receive when one of them crashes after reading a request and before answering: the
 * request may have been acted on, so no other member gets it unless the pool names it idempotent,
 * and then byte for byte. Real members (one that crashes, others that record what they read), real
 * clients: HTTP/1.1 chunked, HTTP/2 with prior knowledge and no content-length, grpc-java. The
 * crashing member has weight 1 and the others 0.1, so the balancer sends it the first request.
 */
class RetrySafetyIT extends DataPlaneTestBase {
  static final String HOST = "orders.example";

  /** 27 bytes, as in the report. */
  static final String BODY = "order=42&item=shoes&qty=007";

  final List<GrpcEcho> grpcServers = new ArrayList<>();
  ManagedChannel channel;
  H2Posts h2;

  @AfterEach
  void stopClients() {
    if (channel != null) {
      channel.shutdownNow();
    }
    grpcServers.forEach(GrpcEcho::stop);
    if (h2 != null) {
      h2.close();
    }
  }

  CrashingMember crashing() {
    return new CrashingMember(vertx, "crash", CrashingMember.Mode.CRASH_AFTER_READ).start();
  }

  CrashingMember recording(String name) {
    return new CrashingMember(vertx, name, CrashingMember.Mode.ANSWER).start();
  }

  void pool(String appProtocol, SnapshotBuilder b, CrashingMember crash, CrashingMember... others) {
    b.hosts(HOST).appProtocol(appProtocol).member(crash.snapshot(1.0));
    for (CrashingMember m : others) {
      b.member(m.snapshot(0.1));
    }
    publish(b);
  }

  /** POST /orders over HTTP/1.1, its 27 bytes in one chunk. */
  RawHttp.Response h1ChunkedPost() throws Exception {
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      return c.send(
          "POST /orders HTTP/1.1\r\nHost: "
              + HOST
              + "\r\nTransfer-Encoding: chunked\r\n\r\n1b\r\n"
              + BODY
              + "\r\n0\r\n\r\n");
    }
  }

  /** POST /orders over HTTP/1.1 with a Content-Length. */
  RawHttp.Response h1Post(String body) throws Exception {
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      return c.post(HOST, "/orders", body);
    }
  }

  @Test
  void anHttp11ChunkedPostThatReachedACrashedMemberIsNotSentAgain() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    CrashingMember c3 = recording("c3");
    startDataPlane();
    pool("http", SnapshotBuilder.pool("shop/h1"), crash, c2, c3);
    RawHttp.Response r = h1ChunkedPost();
    assertThat(r.status()).isEqualTo(502);
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).isEmpty();
    assertThat(c3.received).isEmpty();
  }

  @Test
  void anHttp11ChunkedPostThePoolNamesIdempotentIsSentAgainWithTheSameBytes() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("http", SnapshotBuilder.pool("shop/h1").idempotent(List.of("POST"), null), crash, c2);
    RawHttp.Response r = h1ChunkedPost();
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.header("x-replica")).isEqualTo("c2");
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).containsExactly(new Received("POST", "/orders", BODY));
  }

  /** Past the 64 KiB kept for a replay, a body that went out is never sent again. */
  @Test
  void anHttp11PostWithABodyPastWhatIsKeptIsNotSentAgainEvenNamedIdempotent() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("http", SnapshotBuilder.pool("shop/h1").idempotent(List.of("POST"), null), crash, c2);
    String big = "0123456789abcdef".repeat(80 * 1024 / 16); // 80 KiB
    RawHttp.Response r = h1Post(big);
    assertThat(r.status()).isEqualTo(502);
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", big));
    assertThat(c2.received).isEmpty();
  }

  @Test
  void anHttp11PostAnH2cMemberRefusedGoesToAnotherMemberWithItsBody() throws Exception {
    CrashingMember refusing =
        new CrashingMember(vertx, "refusing", CrashingMember.Mode.REFUSE_STREAM).start();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("kubernetes.io/h2c", SnapshotBuilder.pool("shop/h2c"), refusing, c2);
    RawHttp.Response r = h1Post(BODY);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.header("x-replica")).isEqualTo("c2");
    assertThat(refusing.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).containsExactly(new Received("POST", "/orders", BODY));
  }

  @Test
  void anHttp2PostThatReachedACrashedH2cMemberIsNotSentAgain() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    CrashingMember c3 = recording("c3");
    startDataPlane();
    pool("kubernetes.io/h2c", SnapshotBuilder.pool("shop/h2c"), crash, c2, c3);
    Answer a = h2Post();
    assertThat(a.status()).isEqualTo(502);
    assertThat(a.body()).contains("closed the stream");
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).isEmpty();
    assertThat(c3.received).isEmpty();
  }

  @Test
  void anHttp2PostThePoolNamesIdempotentIsSentAgainWithTheSameBody() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    CrashingMember c3 = recording("c3");
    startDataPlane();
    pool(
        "kubernetes.io/h2c",
        SnapshotBuilder.pool("shop/h2c").idempotent(List.of("POST"), null),
        crash,
        c2,
        c3);
    Answer a = h2Post();
    assertThat(a.status()).isEqualTo(200);
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", BODY));
    List<Received> replayed = new ArrayList<>(c2.received);
    replayed.addAll(c3.received);
    assertThat(replayed).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(a.body()).isIn("c2", "c3");
  }

  @Test
  void anHttp2PostAMemberRefusedGoesToAnotherMemberWithItsBody() throws Exception {
    CrashingMember refusing =
        new CrashingMember(vertx, "refusing", CrashingMember.Mode.REFUSE_STREAM).start();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("kubernetes.io/h2c", SnapshotBuilder.pool("shop/h2c"), refusing, c2);
    Answer a = h2Post();
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.body()).isEqualTo("c2");
    assertThat(refusing.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).containsExactly(new Received("POST", "/orders", BODY));
  }

  @Test
  void anHttp11BodylessPostAnH2cMemberRefusedGoesToAnotherMember() throws Exception {
    CrashingMember refusing =
        new CrashingMember(vertx, "refusing", CrashingMember.Mode.REFUSE_STREAM).start();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("kubernetes.io/h2c", SnapshotBuilder.pool("shop/h2c"), refusing, c2);
    RawHttp.Response r;
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      r = c.send("POST /ping HTTP/1.1\r\nHost: " + HOST + "\r\nContent-Length: 0\r\n\r\n");
    }
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.header("x-replica")).isEqualTo("c2");
    assertThat(refusing.received).containsExactly(new Received("POST", "/ping", ""));
    assertThat(c2.received).containsExactly(new Received("POST", "/ping", ""));
  }

  @Test
  void anHttp2PostBridgedToHttp11MembersIsNotSentAgain() throws Exception {
    CrashingMember crash = crashing();
    CrashingMember c2 = recording("c2");
    startDataPlane();
    pool("http", SnapshotBuilder.pool("shop/h1"), crash, c2);
    Answer a = h2Post();
    assertThat(a.status()).isEqualTo(502);
    assertThat(crash.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(c2.received).isEmpty();
  }

  @Test
  void aGrpcCallThatReachedACrashedMemberIsUnavailableAndNotSentAgain() throws Exception {
    CrashingMember crash = crashing();
    GrpcEcho g2 = grpc("g2");
    GrpcEcho g3 = grpc("g3");
    startDataPlane();
    grpcPool(SnapshotBuilder.pool("shop/grpc"), crash, g2, g3);
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> GrpcEcho.unary(channel, "call-0"));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).contains("closed the stream");
    assertThat(crash.received).hasSize(1);
    assertThat(crash.received.get(0).path()).isEqualTo("/replicapool.test.Echo/Unary");
    assertThat(crash.received.get(0).body()).endsWith("call-0");
    assertThat(g2.unaryReceived).isEmpty();
    assertThat(g3.unaryReceived).isEmpty();
  }

  @Test
  void grpcCallsThePoolNamesIdempotentSurviveTheCrashOfAMember() throws Exception {
    CrashingMember crash = crashing();
    GrpcEcho g2 = grpc("g2");
    GrpcEcho g3 = grpc("g3");
    startDataPlane();
    grpcPool(
        SnapshotBuilder.pool("shop/grpc").idempotent(null, List.of("/replicapool.test.Echo/*")),
        crash,
        g2,
        g3);
    int calls = 2_000;
    Semaphore inFlight = new Semaphore(8);
    AtomicInteger failed = new AtomicInteger();
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      String msg = "call-" + i;
      sent.add(msg);
      inFlight.acquire();
      var f =
          ClientCalls.futureUnaryCall(channel.newCall(GrpcEcho.UNARY, CallOptions.DEFAULT), msg);
      f.addListener(
          () -> {
            try {
              assertThat(f.get()).endsWith(":" + msg);
            } catch (InterruptedException | ExecutionException | AssertionError x) {
              failed.incrementAndGet();
            }
            inFlight.release();
          },
          Runnable::run);
    }
    inFlight.acquire(8);
    List<String> answered = new ArrayList<>(g2.unaryReceived);
    answered.addAll(g3.unaryReceived);
    System.out.println(
        "FIGURE retry safety: "
            + calls
            + " unary calls, 8 in flight, one member crashed after reading "
            + crash.received.size()
            + " of them: "
            + failed.get()
            + " failed; "
            + retries());
    assertThat(failed.get()).isZero();
    assertThat(crash.received).isNotEmpty();
    assertThat(answered)
        .as("each call reached a live member once")
        .containsExactlyInAnyOrderElementsOf(sent);
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** An HTTP/2 (prior knowledge) POST of BODY in two DATA frames, without content-length. */
  Answer h2Post() throws Exception {
    h2 = new H2Posts(vertx, dp.trafficPort());
    return h2.post(HOST, "/orders", BODY);
  }

  GrpcEcho grpc(String name) throws Exception {
    GrpcEcho g = new GrpcEcho(name);
    grpcServers.add(g);
    return g;
  }

  void grpcPool(SnapshotBuilder b, CrashingMember crash, GrpcEcho... others) {
    b.hosts(HOST).appProtocol("kubernetes.io/h2c").member(crash.snapshot(1.0));
    for (GrpcEcho g : others) {
      b.member(new MemberSnapshot("127.0.0.1", g.port(), 0.1, MemberState.Healthy));
    }
    publish(b);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort())
            .usePlaintext()
            .overrideAuthority(HOST)
            .build();
  }

  String retries() throws Exception {
    return adminGet("/metrics")
        .body()
        .lines()
        .filter(l -> l.startsWith("replicapool_retries_total"))
        .toList()
        .toString();
  }
}
