package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC through the data plane with real grpc-java servers as members and a real grpc-java client:
 * every RPC kind, per-request balancing over one client connection, trailers passed through, a
 * member failing with UNAVAILABLE counted against it.
 */
class GrpcIT extends DataPlaneTestBase {
  static final String HOST = "echo.grpc.example";
  final List<GrpcEcho> servers = new ArrayList<>();
  ManagedChannel channel;

  @AfterEach
  void stopGrpc() {
    if (channel != null) {
      channel.shutdownNow();
    }
    servers.forEach(GrpcEcho::stop);
  }

  GrpcEcho server(String name) throws Exception {
    GrpcEcho s = new GrpcEcho(name);
    servers.add(s);
    return s;
  }

  static MemberSnapshot member(GrpcEcho s) {
    return new MemberSnapshot("127.0.0.1", s.port(), 1.0, MemberState.Healthy);
  }

  void pool(GrpcEcho... members) {
    pool(SnapshotBuilder.pool("shop/echo"), members);
  }

  void pool(SnapshotBuilder b, GrpcEcho... members) {
    b.hosts(HOST).appProtocol("kubernetes.io/h2c");
    for (GrpcEcho m : members) {
      b.member(member(m));
    }
    publish(b);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort())
            .usePlaintext()
            .overrideAuthority(HOST)
            .build();
  }

  @Test
  void unaryCallsOverOneConnectionAreBalancedPerRequest() throws Exception {
    GrpcEcho a = server("a");
    GrpcEcho b = server("b");
    GrpcEcho c = server("c");
    startDataPlane();
    pool(a, b, c);
    Map<String, Integer> counts = new HashMap<>();
    int calls = 6000;
    for (int i = 0; i < calls; i++) {
      String answer = GrpcEcho.unary(channel, "x" + i);
      assertThat(answer).endsWith(":x" + i);
      counts.merge(answer.substring(0, answer.indexOf(':')), 1, Integer::sum);
    }
    System.out.println(
        "FIGURE grpc per-request spread of "
            + calls
            + " unary RPCs over one connection: "
            + counts);
    assertThat(counts).containsOnlyKeys("a", "b", "c");
    counts.values().forEach(n -> assertThat(n).isBetween(calls / 3 * 9 / 10, calls / 3 * 11 / 10));
  }

  @Test
  void streamingCallsOfEveryKindPassThrough() throws Exception {
    GrpcEcho a = server("a");
    startDataPlane();
    pool(a);

    List<String> streamed = new ArrayList<>();
    GrpcEcho.serverStream(channel, 50).forEachRemaining(streamed::add);
    assertThat(streamed).hasSize(50).first().isEqualTo("a:0");
    assertThat(streamed).last().isEqualTo("a:49");

    CompletableFuture<String> summed = new CompletableFuture<>();
    StreamObserver<String> up =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(GrpcEcho.CLIENT_STREAM, CallOptions.DEFAULT), observer(summed, null));
    for (int i = 0; i < 20; i++) {
      up.onNext("p" + i + ";");
    }
    up.onCompleted();
    assertThat(summed.get(10, TimeUnit.SECONDS)).startsWith("a:p0;p1;").endsWith("p19;");

    List<String> echoed = new CopyOnWriteArrayList<>();
    CompletableFuture<String> bidiDone = new CompletableFuture<>();
    StreamObserver<String> bidi =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(GrpcEcho.BIDI, CallOptions.DEFAULT), observer(bidiDone, echoed));
    for (int i = 0; i < 30; i++) {
      bidi.onNext("m" + i);
    }
    bidi.onCompleted();
    bidiDone.get(10, TimeUnit.SECONDS);
    assertThat(echoed).hasSize(30).first().isEqualTo("a:m0");
  }

  @Test
  void statusAndMessageInTrailersReachTheClientAndUnavailableCountsAgainstTheMember()
      throws Exception {
    GrpcEcho a = server("a");
    startDataPlane();
    pool(a);
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.FAIL, CallOptions.DEFAULT, "x"));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).isEqualTo("a is unavailable");
    assertThat(poolStatus("shop/echo").getJsonArray("members").getJsonObject(0).getLong("failures"))
        .isEqualTo(1);
  }

  @Test
  void aMemberThatIsGoneIsRetriedElsewhereWithoutAFailedCall() throws Exception {
    GrpcEcho a = server("a");
    GrpcEcho b = server("b");
    startDataPlane();
    pool(a, b);
    b.stop();
    b.server.awaitTermination(5, TimeUnit.SECONDS);
    for (int i = 0; i < 50; i++) {
      assertThat(GrpcEcho.unary(channel, "k" + i)).isEqualTo("a:k" + i);
    }
  }

  @Test
  void aMemberStoppingUnderLoadCostsNoRpc() throws Exception {
    GrpcEcho a = server("a");
    GrpcEcho b = server("b");
    GrpcEcho c = server("c");
    startDataPlane();
    pool(a, b, c);
    int calls = 3000;
    int failed = 0;
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < calls; i++) {
      if (i == calls / 3) {
        b.server.shutdown(); // GOAWAY, then its port closes: as a Pod that was sent SIGTERM
      }
      try {
        String answer = GrpcEcho.unary(channel, "x" + i);
        counts.merge(answer.substring(0, answer.indexOf(':')), 1, Integer::sum);
      } catch (StatusRuntimeException e) {
        failed++;
      }
    }
    System.out.println(
        "FIGURE grpc member stopped after "
            + calls / 3
            + " of "
            + calls
            + " sequential unary RPCs: "
            + failed
            + " failed, answers "
            + counts);
    assertThat(failed).isZero();
    assertThat(counts.get("b")).isLessThanOrEqualTo(calls / 3 / 3 + 50);
  }

  /** The echo pool, round-robin, hedged {@code millis} after a try had the whole call. */
  static SnapshotBuilder hedgedEcho(int millis) {
    return SnapshotBuilder.pool("shop/echo")
        .policy(RoutingPolicy.RoundRobin)
        .hedgeAfterMillis(millis, 1);
  }

  @Test
  void aCallThePoolNamesIdempotentIsHedgedAndAStalledMemberCostsNoWait() throws Exception {
    GrpcEcho slow = server("slow");
    slow.unaryDelayMillis = 3_000;
    GrpcEcho a = server("a");
    GrpcEcho b = server("b");
    startDataPlane();
    pool(hedgedEcho(30).idempotent(List.of(), List.of("/replicapool.test.Echo/*")), slow, a, b);
    int calls = 30;
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      assertThat(GrpcEcho.unary(channel, "h" + i)).matches("[ab]:h" + i);
    }
    long tookMillis = (System.nanoTime() - start) / 1_000_000L;
    assertThat(tookMillis).as("30 calls, none waiting out the stalled member").isLessThan(3_000);
    assertThat(slow.unaryReceived).as("the stalled member got its share first").isNotEmpty();
    // A hedge carries the same message: every call reached a member that answered it.
    List<String> answered = new ArrayList<>(a.unaryReceived);
    answered.addAll(b.unaryReceived);
    for (int i = 0; i < calls; i++) {
      assertThat(answered).contains("h" + i);
    }
    assertThat(metric("replicapool_hedges_total", "outcome=\"won\"")).isPositive();
    // The stalled member's calls were cancelled, not left waiting.
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(slow.cancelled.get()).isEqualTo(slow.unaryReceived.size()));
  }

  @Test
  void aClientStreamIsHedgedOnceItsLastMessageIsInAndTheFirstAnswerWins() throws Exception {
    GrpcEcho slow = server("slow");
    slow.clientStreamDelayMillis = 5_000;
    GrpcEcho fast = server("fast");
    startDataPlane();
    pool(hedgedEcho(30).idempotent(List.of(), List.of("/replicapool.test.Echo/*")), slow, fast);
    // Round-robin over two members: of four calls, two go to the stalled one first.
    for (int i = 0; i < 4; i++) {
      CompletableFuture<String> answer = new CompletableFuture<>();
      StreamObserver<String> up =
          ClientCalls.asyncClientStreamingCall(
              channel.newCall(GrpcEcho.CLIENT_STREAM, CallOptions.DEFAULT), observer(answer, null));
      for (String m : List.of("s" + i + "a;", "s" + i + "b;", "s" + i + "c;")) {
        up.onNext(m);
        Thread.sleep(40); // the workload: a client whose messages come slower than the hedge delay
      }
      long ended = System.nanoTime();
      up.onCompleted();
      assertThat(answer.get(10, TimeUnit.SECONDS))
          .isEqualTo("fast:s" + i + "a;s" + i + "b;s" + i + "c;");
      assertThat((System.nanoTime() - ended) / 1_000_000L)
          .as("call %d: answered without waiting out the stalled member", i)
          .isLessThan(2_000);
    }
    assertThat(slow.clientStreamsReceived)
        .as("the stalled member got its share first")
        .hasSizeGreaterThanOrEqualTo(2);
    // The hedge, 30 ms after the stream's end, carried all of it, every message once, in order.
    assertThat(fast.clientStreamsReceived)
        .hasSize(4)
        .allMatch(m -> m.matches("s\\da;s\\db;s\\dc;"));
    assertThat(metric("replicapool_hedges_total", "outcome=\"won\"")).isEqualTo(2.0);
  }

  @Test
  void aCallThePoolDoesNotNameIsNeverHedged() throws Exception {
    GrpcEcho slow = server("slow");
    slow.unaryDelayMillis = 200;
    GrpcEcho other = server("other");
    startDataPlane();
    pool(hedgedEcho(20), slow, other);
    for (int i = 0; i < 6; i++) {
      assertThat(GrpcEcho.unary(channel, "n" + i)).endsWith(":n" + i);
    }
    assertThat(slow.unaryReceived.size() + other.unaryReceived.size()).isEqualTo(6);
    assertThat(slow.unaryReceived).isNotEmpty();
    assertThat(metric("replicapool_hedges_total", "")).isZero();
  }

  @Test
  void aDeadlineShorterThanTheMemberIsHonouredAtTheProxy() throws Exception {
    GrpcEcho a = server("a");
    startDataPlane();
    pool(a);
    ClientCall<String, String> call =
        channel.newCall(
            GrpcEcho.BIDI, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS));
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    // no message, no half-close: the member waits for ever, the deadline ends the call
    assertThat(closed.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void thePoolsRequestTimeoutEndsACallWhoseOwnDeadlineIsLonger() throws Exception {
    GrpcEcho a = server("a");
    startDataPlane();
    pool(SnapshotBuilder.pool("shop/echo").timeouts(300L, null, null), a);
    ClientCall<String, String> call =
        channel.newCall(GrpcEcho.BIDI, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    CompletableFuture<Status> closed = new CompletableFuture<>();
    long start = System.nanoTime();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    Status status = closed.get(10, TimeUnit.SECONDS);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(status.getDescription()).contains("deadline exceeded at the proxy");
    assertThat(millis).as("the pool's 300 ms, not the call's 30 s").isBetween(300L, 5_000L);
  }

  private static StreamObserver<String> observer(CompletableFuture<String> last, List<String> all) {
    return new StreamObserver<>() {
      String latest;

      @Override
      public void onNext(String v) {
        latest = v;
        if (all != null) {
          all.add(v);
        }
      }

      @Override
      public void onError(Throwable t) {
        last.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        last.complete(latest);
      }
    };
  }
}
