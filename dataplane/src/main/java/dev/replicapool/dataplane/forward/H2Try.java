package dev.replicapool.dataplane.forward;

import dev.replicapool.controlplane.load.LoadReport;
import dev.replicapool.controlplane.load.LoadReports;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H2MemberConnections;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * One try of a client HTTP/2 stream ({@link H2StreamForwarder}) on one member, the member's side of
 * it: told when its stream on the member's connection opens (or cannot), then that stream's
 * handler, passing the member's frames to the client as they are and reading what they say about
 * the try (a refused stream, a reset, the status, gRPC UNAVAILABLE). It counts the try once, as a
 * success or failure for the balancer and an attempt for the metrics. A try its stream gave up on
 * (timed out, replaced) drops what its member stream still brings. Over 300 lines with its {@link
 * Owner} (each of the events it reports, documented) and every kind of frame and event Netty hands
 * a member stream's one handler.
 */
final class H2Try extends ChannelInboundHandlerAdapter
    implements H2MemberConnections.StreamListener, TryCourse.Attempt {
  /** The client stream a try serves. */
  interface Owner {
    /**
     * Whether the stream is still going and {@code t} is one of its tries that count: out and
     * waiting for an answer's head, or the one whose answer goes to the client.
     */
    boolean carries(H2Try t);

    /** Try {@code t}'s stream to its member is open. */
    void streamOpened(H2Try t);

    /**
     * Try {@code t} ended without an answer; {@code outcome} says what it may have done, and so
     * whether another member may get the request ({@code label} for the metrics).
     */
    void tryFailed(H2Try t, String why, String label, Tries.Outcome outcome);

    /** The member's stream broke after its answer's head went to the client. */
    void brokeMidAnswer(String why, Http2Error error);

    boolean answerStarted();

    /**
     * Try {@code t}'s member answered {@code status} (5xx), none of it passed on yet: whether that
     * answer is held back while it comes, because another try may replace it.
     */
    boolean holds(H2Try t, int status);

    /**
     * Try {@code t}'s held answer came whole: returns whether another try replaces it (then {@code
     * t} is over and the owner keeps the answer, for the client should no other try answer), else
     * {@code t} passes it on.
     */
    boolean heldAnswerEnded(H2Try t, H2HeldAnswer answer);

    /** Try {@code t}'s member sent its response head: its answer starts; returns its status. */
    int answerStarts(H2Try t, Http2Headers head);

    /** The client gets a reset and the stream ends. */
    void resetClient(Http2Error error);

    /** The member's answer is complete and passed on. */
    void ended();
  }

  private final Owner owner;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Deadlines deadlines;
  private final ChannelHandlerContext client;
  private final String setCookie;
  private final Endpoint member;
  private final long start;
  private final RequestRecord record;
  private Http2StreamChannel stream;

  /** Where the try's result stands. */
  enum Result {
    /** Out, not counted yet. */
    PENDING,
    /** The member's GOAWAY said it processed none of it (the stream closes next); not counted. */
    UNPROCESSED,
    /** Counted once, as its member's success or failure. */
    COUNTED
  }

  private Result result = Result.PENDING;

  /** Its member's 5xx answer held back while it comes (a retry may replace it); null otherwise. */
  private H2HeldAnswer held;

  /**
   * @param client the client stream's context, where the member's frames go
   * @param setCookie the proxy's own Set-Cookie for a final answer, or null
   * @param record what is written down about the stream (its observer, its access-log line)
   */
  H2Try(
      Owner owner,
      Forwarding fw,
      PoolRuntime pool,
      Deadlines deadlines,
      ChannelHandlerContext client,
      String setCookie,
      Endpoint member,
      long start,
      RequestRecord record) {
    this.record = record;
    this.owner = owner;
    this.fw = fw;
    this.pool = pool;
    this.deadlines = deadlines;
    this.client = client;
    this.setCookie = setCookie;
    this.member = member;
    this.start = start;
  }

  @Override
  public long sentAt() {
    return start;
  }

  @Override
  public Endpoint member() {
    return member;
  }

  /** Its stream on the member's connection, null until it opened. */
  Http2StreamChannel stream() {
    return stream;
  }

  @Override
  public void opened(Http2StreamChannel stream) {
    if (!owner.carries(this)) {
      stream.close(); // the stream came after its try was given up
    } else {
      this.stream = stream;
      owner.streamOpened(this);
    }
  }

  @Override
  public void failed(Throwable cause) {
    if (!owner.carries(this)) {
      return;
    }
    owner.tryFailed(
        this,
        pool.aboutMember(member, "is unreachable"),
        "connect_failure",
        Tries.Outcome.CONNECT_FAILURE);
  }

  @Override
  public void channelRead(ChannelHandlerContext m, Object msg) {
    if (!owner.carries(this)) {
      ReferenceCountUtil.release(msg); // ended, or a given-up try's stream
      return;
    }
    deadlines.activity(fw.clock.getAsLong());
    if (held != null && (msg instanceof Http2HeadersFrame || msg instanceof Http2DataFrame)) {
      holdMore((Http2StreamFrame) msg);
    } else if (msg instanceof Http2HeadersFrame h) {
      headers(h);
    } else if (msg instanceof Http2DataFrame d) {
      record.bytesOut(d.content().readableBytes());
      client.write(H2Frames.copy(d));
      if (d.isEndStream()) {
        owner.ended();
      }
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void reset(Http2ResetFrame r) {
    Http2Error error = Http2Error.valueOf(r.errorCode());
    String name = error == null ? String.valueOf(r.errorCode()) : error.name();
    String why = pool.aboutMember(member, "reset the stream (" + name + ")");
    if (!owner.answerStarted()) {
      // REFUSED_STREAM: the member says it processed nothing (RFC 9113 8.7).
      boolean refused = r.errorCode() == Http2Error.REFUSED_STREAM.code();
      owner.tryFailed(
          this,
          why,
          "reset",
          refused ? Tries.Outcome.UNPROCESSED : Tries.Outcome.RESET_BEFORE_RESPONSE);
      return;
    }
    countFailure("reset");
    owner.brokeMidAnswer(why, error == null ? Http2Error.INTERNAL_ERROR : error);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext m, Object evt) {
    // Netty's multiplexer hands a stream its RST_STREAM as an event, not a read.
    if (evt instanceof Http2ResetFrame r && owner.carries(this)) {
      deadlines.activity(fw.clock.getAsLong());
      reset(r);
    } else if (evt instanceof Http2GoAwayFrame) {
      // Netty tells only the streams above the GOAWAY's last stream id: the member processed
      // none of them (RFC 9113 6.8), and the stream closes next.
      if (result == Result.PENDING) {
        result = Result.UNPROCESSED;
      }
    }
    ReferenceCountUtil.release(evt);
  }

  private void headers(Http2HeadersFrame h) {
    Http2Headers head = h.headers();
    reported(head);
    boolean failedCall = h.isEndStream() && grpcUnavailable(head);
    if (!owner.answerStarted()) {
      int code = failedCall ? 0 : serverError(head);
      if (code != 0 && owner.holds(this, code)) {
        addCookie(head);
        held = new H2HeldAnswer(code, new DefaultHttp2HeadersFrame(head, h.isEndStream()));
        if (h.isEndStream()) {
          heldEnded();
        }
        return;
      }
      int status = owner.answerStarts(this, head);
      if (!failedCall) {
        countResult(status >= 500, status);
      }
    }
    if (failedCall) {
      countResult(true, 0); // trailers of a failed call, whatever the :status said
    }
    addCookie(head);
    if (h.isEndStream()) {
      record.grpcStatus(head.get("grpc-status"));
    }
    client.write(new DefaultHttp2HeadersFrame(head, h.isEndStream()));
    if (h.isEndStream()) {
      owner.ended();
    }
  }

  /** The proxy's own Set-Cookie goes on a final answer's head. */
  private void addCookie(Http2Headers head) {
    CharSequence answered = head.status();
    if (setCookie != null && answered != null && answered.charAt(0) != '1') {
      head.add("set-cookie", setCookie);
    }
  }

  /** The status of a 5xx answer ({@code head}), else 0. */
  private static int serverError(Http2Headers head) {
    CharSequence s = head.status();
    if (s == null || s.length() != 3 || s.charAt(0) != '5') {
      return 0;
    }
    int tens = Character.digit(s.charAt(1), 10);
    int ones = Character.digit(s.charAt(2), 10);
    return tens >= 0 && ones >= 0 ? 500 + tens * 10 + ones : 0;
  }

  /**
   * More of the held answer came: kept; at its end a retry may replace it, and past what is held it
   * goes on to the client at once.
   */
  private void holdMore(Http2StreamFrame f) {
    if (f instanceof Http2HeadersFrame h) {
      reported(h.headers());
    }
    boolean within = held.add(H2Frames.copy(f)); // a DATA frame's buffer moves with it
    if (held.whole()) {
      heldEnded();
    } else if (!within) {
      H2HeldAnswer a = held;
      held = null;
      passOn(a);
    }
  }

  /** The held answer is whole: replaced by a retry's, or it goes to the client. */
  private void heldEnded() {
    H2HeldAnswer a = held;
    held = null; // the owner's now, or passed on
    if (!owner.heldAnswerEnded(this, a)) {
      passOn(a);
    }
  }

  /** The answer held back goes to the client as its member's: it starts and is counted. */
  private void passOn(H2HeldAnswer a) {
    owner.answerStarts(this, a.head());
    countResult(true, a.status());
    boolean whole = a.whole();
    record.grpcStatus(a.grpcStatus());
    record.bytesOut(a.writeTo(client));
    if (whole) {
      owner.ended();
    }
  }

  /**
   * Reads the member's ORCA load report in its headers or trailers (a gRPC server sends it as a
   * trailer) and takes it out: for the balancer, not the client, unless the pool says to forward
   * it.
   */
  private void reported(Http2Headers h) {
    boolean keep = pool.forwardsLoadReports();
    CharSequence text = keep ? h.get(LoadReports.HEADER) : h.getAndRemove(LoadReports.HEADER);
    CharSequence bin =
        keep ? h.get(LoadReports.HEADER_BIN) : h.getAndRemove(LoadReports.HEADER_BIN);
    LoadReport r =
        bin != null
            ? LoadReports.bin(bin.toString())
            : text == null ? null : LoadReports.parse(text.toString());
    if (r != null) {
      member.reportLoad(r.utilization(), r.inFlight(), fw.clock.getAsLong());
    }
  }

  private static boolean grpcUnavailable(Http2Headers h) {
    CharSequence s = h.get("grpc-status");
    return s != null && s.toString().equals(H2Answers.UNAVAILABLE);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext m) {
    client.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext m) {
    boolean writable = m.channel().isWritable();
    client.channel().config().setAutoRead(writable);
    // while the member takes no more, the client's silence is not its own
    deadlines.clientReadsPaused(!writable, fw.clock.getAsLong());
  }

  @Override
  public void channelInactive(ChannelHandlerContext m) {
    if (!owner.carries(this)) {
      return; // ended, or a given-up try's stream
    }
    boolean unprocessed = result == Result.UNPROCESSED;
    String why =
        pool.aboutMember(
            member, unprocessed ? "went away before processing the stream" : "closed the stream");
    if (!owner.answerStarted()) {
      owner.tryFailed(
          this,
          why,
          "reset",
          unprocessed ? Tries.Outcome.UNPROCESSED : Tries.Outcome.RESET_BEFORE_RESPONSE);
    } else {
      countFailure("reset");
      owner.brokeMidAnswer(why, Http2Error.INTERNAL_ERROR);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext m, Throwable cause) {
    m.close();
  }

  /** Counts the try by its answer's status (or as failed), once. */
  private void countResult(boolean failed, int status) {
    if (result == Result.COUNTED) {
      return;
    }
    result = Result.COUNTED;
    long nanos = fw.clock.getAsLong() - start;
    if (failed) {
      pool.router().failure(member, nanos);
    } else {
      pool.router().success(member, nanos);
    }
    record.observer().answered(member, status);
    record.observer().attempt(pool.name(), member, failed ? "5xx" : (status / 100) + "xx", nanos);
  }

  /** Counts the try as the member's failure ({@code outcome}: reset, timeout), once. */
  void countFailure(String outcome) {
    if (result != Result.COUNTED) {
      result = Result.COUNTED;
      long nanos = fw.clock.getAsLong() - start;
      pool.router().failure(member, nanos);
      record.observer().attempt(pool.name(), member, outcome, nanos);
    }
  }

  /** The try is given up: its member stream, if still open, is reset (CANCEL). */
  void cancel() {
    if (held != null) {
      held.release();
      held = null;
    }
    if (stream != null && stream.isActive()) {
      stream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    }
  }

  /** The try is over: its place below the member's in-flight limit is free; returns its nanos. */
  long end() {
    pool.requests().released(member);
    return fw.clock.getAsLong() - start;
  }
}
