package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.accesslog.AccessRecord;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.tracing.RequestTrace;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * One client HTTP/2 stream to a pool whose members speak HTTP/2 (gRPC): the request's frames go
 * onto a stream of the member's multiplexed connection as frames, the member's come back the same
 * way (trailers included), so each request is balanced on its own and flow control holds end to end
 * (a side's reads pause while the other cannot take more). The request's headers gain the proxy's
 * {@code Via} and {@code X-Forwarded-*} ({@link H2RequestHeaders}); the pool's timeouts bound the
 * call, its {@code grpc-timeout} too when shorter ({@link Deadlines}, one timer per stream); a
 * {@code grpc-status} of UNAVAILABLE counts as the member's failure. Which tries are out and what
 * each one's head or failure means is its {@link TryCourse}'s to say, the same as for an HTTP/1.x
 * exchange (whether a lost try is followed by another: {@link Tries}, from what the try may have
 * done: nothing sent, unprocessed, or maybe processed); a retry sends the request byte for byte,
 * its body from {@link H2RequestBody}. When the pool hedges the request, a hedge goes to another
 * member beside the waiting try once the whole request is here and kept: the first answer's head
 * wins, the other tries are reset (CANCEL), as for HTTP/1.x.
 *
 * <p>This class is the client's side of the stream and carries out what its course decides: its
 * frames, its tries' member streams and its end. How its tries go out (member, the pool's queue,
 * the timer, the end) is its {@link TryLoop}'s, the same one an HTTP/1.x exchange's {@link
 * TryRunner} uses, whose timer hands it each deadline that passes; each try's member side is an
 * {@link H2Try}, what the proxy answers itself {@link H2Answers}. Why it is still over 300 lines:
 * the stream's events from the client, the member, the queue and the timer (some twenty) all end
 * here, each turned into frames for one side or the other.
 *
 * <p>What is written down about the stream (metrics, access-log line, trace) is its {@link
 * RequestRecord}'s, the same as for an HTTP/1.x exchange.
 */
final class H2StreamForwarder extends ChannelInboundHandlerAdapter
    implements TryLoop.Exchange<H2Try>, H2Try.Owner {
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final boolean tls;
  private final long start;
  private ChannelHandlerContext ctx;

  /** Where the client's side of the stream stands. */
  enum ClientStream {
    /** Its request's head is not read yet. */
    HEAD,
    /** The head is read, its body still comes. */
    BODY,
    /** The whole request is here. */
    WHOLE,
    /** The stream ended (answered, reset or given up): what the client still sends is dropped. */
    DONE
  }

  private ClientStream clientStream = ClientStream.HEAD;

  /** The request's headers as its members get them; null until its head is read. */
  private Http2Headers requestHeaders;

  private final H2RequestBody body = new H2RequestBody();

  /**
   * How its tries go out (member, queue, timer, end), as for HTTP/1.x; its course holds the tries
   * out: the one in front (whose frames the request body goes to, and whose answer the client gets)
   * and the hedges beside it. Null until the request's head is read.
   */
  private TryLoop<H2Try> loop;

  private Tries tries;
  private boolean grpc;
  private int status;

  /**
   * A member's 5xx answer a retry was sent to replace: it goes to the client should the retry find
   * no member or none reachable; null otherwise.
   */
  private H2HeldAnswer held;

  private Deadlines deadlines;
  private String setCookie;

  /** What is written down about it; null until the request's head is read. */
  private RequestRecord record;

  H2StreamForwarder(Forwarding fw, PoolRuntime pool, boolean tls) {
    this.fw = fw;
    this.pool = pool;
    this.tls = tls;
    this.start = fw.clock.getAsLong();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (clientStream == ClientStream.DONE) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (clientStream == ClientStream.HEAD && msg instanceof Http2HeadersFrame h) {
      begin(h);
      return;
    }
    if (msg instanceof Http2ResetFrame) {
      cancel(); // the client gave up: not the member's doing
      return;
    }
    if (!(msg instanceof Http2DataFrame || msg instanceof Http2HeadersFrame)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    Http2StreamFrame f = H2Frames.copy((Http2StreamFrame) msg);
    if (f instanceof Http2DataFrame d) {
      record.bytesIn(d.content().readableBytes());
    }
    boolean ends = H2Frames.endsStream(f);
    if (ends) {
      clientStream = ClientStream.WHOLE;
    }
    deadlines.clientSent(fw.clock.getAsLong(), ends);
    if (!body.add(f)) {
      tries.bodyNotKept(); // too big to send twice: only a try that sent nothing may be followed
    }
    Http2StreamChannel upstream = upstream();
    if (upstream != null) {
      writeBody(upstream);
    }
    if (ends) {
      loop.timer.arm(); // a hedge that waited for the whole request may be due now
    }
  }

  /** The member stream of the try in front, null when none is open. */
  private Http2StreamChannel upstream() {
    H2Try t = loop == null ? null : loop.course.front();
    return t == null ? null : t.stream();
  }

  private void writeBody(Http2StreamChannel stream) {
    Http2StreamFrame f;
    while ((f = body.poll()) != null) {
      stream.write(f);
    }
  }

  private void begin(Http2HeadersFrame h) {
    Http2Headers in = h.headers();
    clientStream = h.isEndStream() ? ClientStream.WHOLE : ClientStream.BODY;
    grpc = H2RequestHeaders.grpc(in);
    String client = H2RequestHeaders.clientAddress(ctx.channel());
    RequestTrace.Incoming traced =
        fw.tracing == null
            ? null
            : new RequestTrace.Incoming(
                in.get("traceparent"),
                in.get("tracestate"),
                str(in.method()),
                tls ? "https" : "http",
                str(in.path()),
                str(in.authority()));
    record = RequestRecord.begin(fw, pool, start, traced);
    AccessRecord log = record.log();
    if (log != null) {
      log.request(
              client,
              grpc ? "gRPC" : "HTTP/2",
              str(in.method()),
              str(in.authority()),
              str(in.path()))
          .traceparent(in.get("traceparent"));
    }
    CharSequence via = in.get("via");
    requestHeaders = H2RequestHeaders.forwarded(in, via, client, tls, fw.viaName);
    HashKey.Key key = H2RequestHeaders.hashKey(pool.router().hashKey(), in, client);
    setCookie = key.setCookie();
    boolean idempotent = H2RequestHeaders.idempotent(in, grpc, pool.requests().idempotent());
    // Replayable: the body is kept (H2RequestBody) until it outgrows the bound.
    tries = new Tries(pool.retry(), pool.requests(), idempotent, true, key.value());
    RequestPolicy rp = pool.requests();
    deadlines = new Deadlines(start, rp.requestNanos(), rp.perTryNanos(), rp.idleNanos());
    if (clientStream == ClientStream.BODY) {
      deadlines.requestOwed(start);
    }
    if (tries.hedgeable()) {
      deadlines.hedging(rp.hedging().maxHedges(), rp.hedging().delayNanos(rp.latencies()));
    }
    long grpcTimeout = H2RequestHeaders.grpcTimeoutNanos(in.get("grpc-timeout"));
    if (grpcTimeout > 0) {
      deadlines.shortenTo(start + grpcTimeout); // the call's own deadline wins when shorter
    }
    loop =
        new TryLoop<>(
            fw,
            pool,
            ctx.executor(),
            tries,
            deadlines,
            new H2TryAccounts(pool, record.observer()),
            record,
            this);
    if (H2RequestHeaders.loopedBack(via, fw.viaName)) { // answered here: its loop only ends it
      record.local(AccessFlag.LP);
      localAnswer(
          508,
          "request loop: this request already passed this data plane (Via " + fw.viaName + ")");
      return;
    }
    loop.start();
  }

  // ---- tries ---------------------------------------------------------------------------------

  @Override
  public H2Try newTry(Endpoint e, long now) {
    return new H2Try(this, fw, pool, deadlines, ctx, setCookie, e, now, record);
  }

  @Override
  public void open(H2Try t) {
    Endpoint e = t.member();
    fw.h2Connections(ctx.channel().eventLoop())
        .openStream(MemberLinks.key(pool, e), e.host(), e.port(), pool.upstreamTls(), t, t);
  }

  /**
   * A hedge is due: another member gets the request beside the try still waiting. Only once the
   * whole request is here ({@link Deadlines} waits for it) and kept ({@link Tries#hedgeable}).
   */
  @Override
  public void hedgeDue(long now) {
    if (clientStream != ClientStream.WHOLE) {
      return; // not due before the request's end (Deadlines), which re-arms the timer
    }
    H2Try h = loop.course.hedgeDue(now, e -> newTry(e, now));
    if (h != null) {
      open(h);
    }
  }

  @Override
  public boolean carries(H2Try t) {
    return clientStream != ClientStream.DONE && loop.course.carries(t);
  }

  @Override
  public void streamOpened(H2Try t) {
    Http2StreamChannel stream = t.stream();
    Http2Headers headers = requestHeaders;
    String traceparent = record.traceparentFor(t.member(), t.sentAt());
    if (traceparent != null) { // this try's own span is the member's parent
      headers = new DefaultHttp2Headers(false).add(requestHeaders);
      headers.set("traceparent", traceparent);
    }
    if (t == loop.course.front()) {
      stream.write(
          new DefaultHttp2HeadersFrame(
              headers, clientStream == ClientStream.WHOLE && body.nothingPending()));
      writeBody(stream);
    } else { // a hedge: the request is whole, kept, and sent as it is
      List<Http2StreamFrame> frames = body.copy();
      stream.write(new DefaultHttp2HeadersFrame(headers, frames.isEmpty()));
      frames.forEach(stream::write);
    }
    stream.flush();
  }

  @Override
  public void tryFailed(H2Try t, String why, String label, Tries.Outcome outcome) {
    loop.failed(502, why);
    String retryLabel = outcome == Tries.Outcome.UNPROCESSED ? "unprocessed" : label;
    loop.lost(t, label, outcome, body.replayable(), retryLabel);
  }

  @Override
  public void answerBroke(String why) {
    brokeMidAnswer(why, Http2Error.INTERNAL_ERROR);
  }

  @Override
  public void brokeMidAnswer(String why, Http2Error error) {
    if (!grpc) {
      resetClient(error);
      return;
    }
    // The answer's head went out, its trailers did not: a gRPC client reads these trailers as
    // the call's status, where a reset would read as INTERNAL.
    record.flag(AccessFlag.UC);
    grpcStatus(false, H2Answers.UNAVAILABLE, why);
    endAttempt();
    finish(502);
  }

  @Override
  public boolean answerStarted() {
    return loop != null && loop.course.phase() == TryCourse.Phase.ANSWERING;
  }

  @Override
  public boolean holds(H2Try t, int status) {
    return loop.course.mayReplace(t, status, body.replayable());
  }

  /**
   * The held answer of {@code t} came whole: another member gets the request if the retry budget
   * allows (the answer kept meanwhile), else it goes to the client as it came.
   */
  @Override
  public boolean heldAnswerEnded(H2Try t, H2HeldAnswer answer) {
    int code = answer.status();
    if (!loop.course.answerReplaced(t, code, body.replayable(), fw.clock.getAsLong())) {
      return false;
    }
    if (held != null) {
      held.release();
    }
    held = answer;
    loop.failed(502, pool.aboutMember(t.member(), "answered " + code));
    loop.retry("status_" + code);
    return true;
  }

  @Override
  public boolean sendHeldAnswer() {
    H2HeldAnswer a = held;
    if (a == null) {
      return false;
    }
    held = null;
    endAttempt();
    status = a.status();
    record.firstByte(fw.clock.getAsLong());
    record.grpcStatus(a.grpcStatus());
    record.bytesOut(a.writeTo(ctx));
    ctx.flush();
    finish(status);
    return true;
  }

  @Override
  public int answerStarts(H2Try t, Http2Headers head) {
    long now = fw.clock.getAsLong();
    if (t != loop.course.front()) {
      body.dropPending(); // a hedge answered first: it was sent the whole request
    }
    loop.course.answered(t, now); // every other try loses
    record.firstByte(now);
    pool.requests().latencies().record(now - t.sentAt());
    CharSequence s = head.status();
    status = s == null ? 502 : Integer.parseInt(s.toString());
    return status;
  }

  // ---- the client's side ---------------------------------------------------------------------

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    Http2StreamChannel upstream = upstream();
    if (upstream != null) {
      upstream.flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    Http2StreamChannel upstream = upstream();
    boolean writable = ctx.channel().isWritable();
    if (upstream != null) {
      upstream.config().setAutoRead(writable);
    }
    if (clientStream == ClientStream.DONE || loop == null) {
      return;
    }
    // While the member is not read, its silence is the client's (a zero window, a slow reader).
    long now = fw.clock.getAsLong();
    if (writable) {
      deadlines.clientUnblocked(now);
    } else {
      deadlines.clientBlocked(now);
      loop.timer.arm();
    }
  }

  /**
   * The client took none of the answer for the idle timeout: the stream is reset (CANCEL), the
   * tries end as aborted, nothing is counted against the member.
   */
  @Override
  public void clientStalled() {
    abort("aborted");
    record.flag(AccessFlag.SI);
    fw.observer.clientStalled(pool.name(), "h2", "answer");
    ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    finish(status == 0 ? 499 : status);
  }

  /**
   * The client sent none of the rest of its request for the idle timeout while the member waited
   * for it: 408 (gRPC: its status for it) and the stream reset, or, with an answer under way, only
   * the reset; nothing is counted against the member.
   */
  @Override
  public void clientSilent() {
    abort("aborted");
    record.flag(AccessFlag.SI);
    fw.observer.clientStalled(pool.name(), "h2", "request");
    if (!answerStarted()) {
      long ms = pool.requests().idleNanos() / 1_000_000L;
      localAnswer(408, "the client sent none of the rest of its request for " + ms + " ms");
    }
    ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)); // the rest is not read
    finish(status == 0 ? 499 : status);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // a stream error on the client's side: the codec resets the stream
  }

  private void cancel() {
    if (clientStream == ClientStream.DONE) {
      return;
    }
    abort("aborted");
    finish(499);
  }

  /**
   * Ends the try in front as {@code outcome} (not its member's doing) and resets its stream; the
   * hedges still out end with the stream ({@link #finish}).
   */
  private void abort(String outcome) {
    H2Try t = loop == null ? null : loop.course.endFront();
    if (t != null) {
      t.cancel();
      record.observer().attempt(pool.name(), t.member(), outcome, t.end());
    }
  }

  // ---- what falls due (its TryLoop's timer says) ---------------------------------------------

  /**
   * The try the per-try timeout watches (the one in front, else the oldest hedge) had no answer's
   * head in time ({@link TryLoop} noted its member's failure): its stream is reset; then another
   * try may still answer, a retry goes out, or the client gets 504 (gRPC: DEADLINE_EXCEEDED).
   */
  @Override
  public void tryTimedOut(H2Try t, String why) {
    loop.lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, body.replayable(), "timeout");
  }

  /**
   * The member went silent mid-exchange for the idle timeout: the try it watches is given up as its
   * member's failure (the rest end with the stream); an answer under way is reset, else 504.
   */
  @Override
  public void memberSilent() {
    H2Try t = loop.course.watched();
    if (t != null) {
      loop.course.lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, false, fw.clock.getAsLong());
    }
    if (answerStarted()) {
      resetClient(Http2Error.CANCEL);
    } else {
      localAnswer(504, "member of pool " + pool.name() + " did not answer in time");
    }
  }

  /**
   * A retry sends the kept frames from the first: whole, or none of them sent (the course asked).
   */
  @Override
  public void rewind() {
    body.restart();
  }

  /** The request timeout (or the call's grpc-timeout) passed: the stream ends now. */
  @Override
  public void requestTimedOut() {
    abort("timeout");
    boolean answering = answerStarted();
    record.flag(AccessFlag.DT);
    if (!answering) {
      record.local(null);
    }
    if (grpc) {
      grpcStatus(!answering, H2Answers.DEADLINE_EXCEEDED, "deadline exceeded at the proxy");
      finish(504);
    } else if (answering) {
      resetClient(Http2Error.CANCEL);
    } else {
      long ms = pool.requests().requestNanos() / 1_000_000L;
      localAnswer(
          504,
          "pool " + pool.name() + " did not answer within its request timeout of " + ms + " ms");
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  @Override
  public void ended() {
    ctx.flush();
    endAttempt();
    finish(status);
  }

  @Override
  public void resetClient(Http2Error error) {
    record.flag(AccessFlag.UC);
    ctx.writeAndFlush(new DefaultHttp2ResetFrame(error));
    endAttempt();
    finish(status == 0 ? 502 : status);
  }

  @Override
  public void localAnswer(int code, String message) {
    record.local(null);
    endAttempt();
    record.grpcStatus(H2Answers.local(ctx, grpc, code, message, pool.name()));
    finish(code);
  }

  /** Ends the current try, if any: returns how long it took. */
  private long endAttempt() {
    H2Try t = loop == null ? null : loop.course.endFront();
    return t == null ? 0 : t.end();
  }

  /**
   * The stream ends with {@code code}: what the client still sends is dropped from now on, and its
   * {@link TryLoop} ends the request (timer, tries, queue, {@link #release}, the record).
   */
  private void finish(int code) {
    if (clientStream == ClientStream.DONE) {
      return;
    }
    clientStream = ClientStream.DONE;
    if (loop != null) {
      loop.end(code);
    } else {
      release(); // its head never came: nothing was begun but the body
    }
  }

  @Override
  public void release() {
    body.release();
    if (held != null) {
      held.release();
      held = null;
    }
  }

  private static String str(CharSequence s) {
    return s == null ? null : s.toString();
  }

  /** Ends the call with the proxy's own gRPC {@code status}, noted on the access-log line. */
  private void grpcStatus(boolean head, String status, String why) {
    record.grpcStatus(status);
    H2Answers.grpcStatus(ctx, head, status, why);
  }
}
