package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.policy.AdmissionQueue;
import dev.replicapool.dataplane.policy.IdempotentRequests;
import dev.replicapool.dataplane.policy.LatencyWindow;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryBudgetWindow;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 client stream's side through its states ({@link H2StreamForwarder.ClientStream}: HEAD,
 * BODY, WHOLE, DONE), seen from outside, on an embedded stream channel whose time the test moves
 * with the data plane's clock: the request's head and body frames, what the proxy answers itself (a
 * loop, every member full, the request's timeout, the call's shorter {@code grpc-timeout}, a client
 * that stops sending) and what is dropped once the stream ended. The pool's one member is kept
 * full, so the request waits in the pool's queue and no try goes out (what a try does is {@link
 * TryLoopTest}'s and the integration tests').
 */
class H2StreamForwarderTest {
  static final long MS = EmbeddedTime.MS;

  /** What the client gets when the request's 500 ms run out before any answer. */
  static final List<String> REQUEST_TIMED_OUT =
      List.of(":status 504", "data pool a/p did not answer within its request timeout of 500 ms");

  final EmbeddedTime time = new EmbeddedTime();
  final EmbeddedChannel channel = time.channel;
  final LongSupplier clock = time.clock;
  final List<String> counted = time.counted;

  final Forwarding fw =
      new Forwarding(
          ProxySettings.defaults(),
          () -> RoutingTable.EMPTY,
          time.observer,
          clock,
          "test-proxy",
          null,
          AccessLog.OFF,
          null);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  /**
   * A pool of one member, kept full (one request in flight at most), a queue of {@code depth} for
   * up to a second, a request timeout of 500 ms and an idle timeout of 100 ms.
   */
  PoolRuntime fullPool(int depth) {
    RequestPolicy rp =
        new RequestPolicy(
            500 * MS,
            0,
            100 * MS,
            null,
            new RetryBudgetWindow(0, 0, clock),
            new LatencyWindow(clock),
            1,
            depth == 0 ? null : new AdmissionQueue(depth, 1_000 * MS, clock),
            IdempotentRequests.DEFAULT);
    PoolRuntime pool = time.pool(1, new RetryPolicy(2, false), rp);
    assertThat(new Tries(new RetryPolicy(2, false), rp, true, true).next(pool.router()))
        .as("another request holds the member's one slot")
        .isNotNull();
    channel.pipeline().addLast(new H2StreamForwarder(fw, pool, false));
    return pool;
  }

  static Http2Headers request(String method) {
    return new DefaultHttp2Headers()
        .method(method)
        .scheme("http")
        .authority("p.example")
        .path("/a");
  }

  static Http2Headers grpcCall(String timeout) {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .authority("p.example")
        .path("/pkg.Service/Call")
        .set("content-type", "application/grpc")
        .set("grpc-timeout", timeout);
  }

  void headers(Http2Headers h, boolean endStream) {
    channel.writeInbound(new DefaultHttp2HeadersFrame(h, endStream));
  }

  Http2DataFrame data(String s, boolean endStream) {
    Http2DataFrame d =
        new DefaultHttp2DataFrame(Unpooled.copiedBuffer(s, StandardCharsets.UTF_8), endStream);
    channel.writeInbound(d);
    return d;
  }

  void advanceMillis(long ms) {
    time.advanceMillis(ms);
  }

  /** What the client was sent: ":status" or "grpc-status N", a body, a reset, in order. */
  List<String> sentToClient() {
    List<String> out = new ArrayList<>();
    Object o;
    while ((o = channel.readOutbound()) != null) {
      if (o instanceof Http2HeadersFrame h) {
        CharSequence grpc = h.headers().get("grpc-status");
        out.add(
            (h.headers().status() == null ? "" : ":status " + h.headers().status())
                + (grpc == null ? "" : " grpc-status " + grpc)
                + (h.isEndStream() ? " end" : ""));
      } else if (o instanceof Http2DataFrame d) {
        out.add("data " + d.content().toString(StandardCharsets.UTF_8).strip());
        d.release();
      } else if (o instanceof Http2ResetFrame r) {
        out.add("reset " + Http2Error.valueOf(r.errorCode()));
      }
    }
    return out;
  }

  @Test
  void aRequestThatAlreadyPassedThisProxyIsRefused508AndItsBodyDropped() {
    fullPool(2);
    headers(request("POST").set("via", "2 test-proxy"), false);
    assertThat(sentToClient())
        .containsExactly(
            ":status 508",
            "data request loop: this request already passed this data plane (Via test-proxy)");

    Http2DataFrame late = data("body", true);
    assertThat(late.refCnt()).as("dropped").isZero();
    assertThat(sentToClient()).isEmpty();
    assertThat(counted).as("it never queued").isEmpty();
  }

  @Test
  void everyMemberFullAndNoQueueIs503AtOnce() {
    fullPool(0);
    headers(request("GET"), true);
    assertThat(sentToClient()).hasSize(2).first().isEqualTo(":status 503");
    assertThat(counted).containsExactly("queue overflow");
  }

  @Test
  void aBodyComesWhileTheRequestWaitsThenItsTimeoutEndsIt504() {
    PoolRuntime pool = fullPool(2);
    headers(request("POST"), false);
    assertThat(counted).containsExactly("queue queued");
    advanceMillis(50);
    data("part one", false);
    advanceMillis(50);
    data("part two", true);
    assertThat(sentToClient()).as("still waiting for a slot").isEmpty();

    advanceMillis(399);
    assertThat(sentToClient()).isEmpty();
    advanceMillis(1);
    assertThat(sentToClient()).isEqualTo(REQUEST_TIMED_OUT);
    assertThat(counted).containsExactly("queue queued");
    assertThat(pool.requests().queue().busy()).as("it left the queue").isFalse();
  }

  @Test
  void aCallsShorterGrpcTimeoutEndsItDeadlineExceeded() {
    fullPool(2);
    headers(grpcCall("200m"), false);
    data("\0\0\0\0\0", true);
    advanceMillis(199);
    assertThat(sentToClient()).isEmpty();
    advanceMillis(1);
    assertThat(sentToClient()).containsExactly(":status 200 grpc-status 4 end");
  }

  @Test
  void whileTheRequestWaitsForASlotOnlyItsTimeoutBoundsAClientThatStoppedSending() {
    fullPool(2);
    headers(request("PUT"), false);
    data("some", false);
    advanceMillis(400); // four idle timeouts: that one applies once a try waits for the body
    assertThat(sentToClient()).isEmpty();
    advanceMillis(100);
    assertThat(sentToClient()).isEqualTo(REQUEST_TIMED_OUT);
    assertThat(counted).doesNotContain("client stalled h2 request");

    assertThat(data("rest", true).refCnt()).as("dropped").isZero();
  }

  @Test
  void aWholeRequestIsNotOwedAnythingByTheClient() {
    fullPool(2);
    headers(request("GET"), true);
    advanceMillis(450); // past the idle timeout: the client owes nothing, the queue still waits
    assertThat(sentToClient()).isEmpty();
  }

  @Test
  void aClientThatResetsTheStreamWhileItWaitsLeavesTheQueueAndIsAnsweredNothing() {
    PoolRuntime pool = fullPool(2);
    headers(request("GET"), true);
    channel.writeInbound(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    assertThat(sentToClient()).isEmpty();
    assertThat(pool.requests().queue().busy()).as("it left the queue").isFalse();
    advanceMillis(1_000);
    assertThat(sentToClient()).as("its timer stopped with it").isEmpty();
  }
}
