package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.upstream.H2MemberConnections;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
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
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One client HTTP/2 stream to a pool whose members speak HTTP/2 (gRPC): the request's frames go
 * onto a stream of the member's multiplexed connection as frames, the member's come back the same
 * way (trailers included), so each request is balanced on its own and flow control holds end to end
 * (a side's reads pause while the other cannot take more). The request's headers gain the proxy's
 * {@code Via} and {@code X-Forwarded-*}; the pool's timeouts bound the call, its {@code
 * grpc-timeout} too when shorter ({@link Deadlines}, one timer per stream); a {@code grpc-status}
 * of UNAVAILABLE counts as the member's failure; a stream the member refused (or a member that
 * cannot be reached) is retried on another member, nothing having been processed.
 *
 * <p>Why one class of this size: both ends of one stream and its tries share one small state (the
 * queued frames, the current member, whether the answer started), as {@link Http1Exchange} does for
 * HTTP/1.x; the member's side is an inner class for that reason.
 */
final class H2StreamForwarder extends ChannelInboundHandlerAdapter implements QueueSlot.Owner {
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final boolean tls;
  private ChannelHandlerContext ctx;
  private Http2Headers requestHeaders;
  private boolean requestEnded;
  private final ArrayDeque<Http2StreamFrame> queued = new ArrayDeque<>();
  private Http2StreamChannel upstream;
  private Endpoint current;
  private long attemptStart;
  private final long start;
  private Tries tries;
  private boolean responseStarted;
  private boolean grpc;
  private int status;
  private boolean done;
  private Deadlines deadlines;
  private DeadlineTimer timer;
  private boolean bodyless;
  private QueueSlot queueSlot;
  private String failure;
  private String setCookie;

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
    if (done) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (requestHeaders == null && msg instanceof Http2HeadersFrame h) {
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
    Http2StreamFrame f = copy((Http2StreamFrame) msg);
    if (endsStream(f)) {
      requestEnded = true;
    }
    if (upstream == null) {
      queued.add(f);
      return;
    }
    upstream.write(f);
  }

  private void begin(Http2HeadersFrame h) {
    Http2Headers in = h.headers();
    requestEnded = h.isEndStream();
    CharSequence ct = in.get("content-type");
    grpc = ct != null && ct.toString().startsWith("application/grpc");
    CharSequence via = in.get("via");
    if (via != null && via.toString().contains(fw.viaName)) {
      localAnswer(
          508,
          "request loop: this request already passed this data plane (Via " + fw.viaName + ")");
      return;
    }
    Http2Headers out = new DefaultHttp2Headers(true, in.size() + 4);
    out.set(in);
    String client = clientAddress();
    CharSequence xff = in.get("x-forwarded-for");
    if (client != null) {
      out.set("x-forwarded-for", xff == null ? client : xff + ", " + client);
    }
    out.set("x-forwarded-proto", tls ? "https" : "http");
    if (in.authority() != null) {
      out.set("x-forwarded-host", in.authority());
    }
    String mine = "2 " + fw.viaName;
    out.set("via", via == null ? mine : via + ", " + mine);
    requestHeaders = out;
    String method = in.method() == null ? "" : in.method().toString();
    boolean idempotent =
        grpc || method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
    bodyless = h.isEndStream();
    HashKey.Key key = hashKey(in);
    setCookie = key.setCookie();
    tries = new Tries(pool.retry(), pool.requests(), idempotent, bodyless, key.value());
    RequestPolicy rp = pool.requests();
    deadlines = new Deadlines(start, rp.requestNanos(), rp.perTryNanos(), rp.idleNanos());
    timer = new DeadlineTimer(ctx.executor(), fw.clock, deadlines, this::due);
    long grpcTimeout = grpcTimeoutNanos(in.get("grpc-timeout"));
    if (grpcTimeout > 0) {
      deadlines.shortenTo(start + grpcTimeout); // the call's own deadline wins when shorter
    }
    timer.arm();
    if (rp.queue() != null && rp.queue().busy()) {
      waitForSlot();
      return;
    }
    sendTry();
  }

  private void sendTry() {
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      if (tries.noMember() == Tries.NoMember.ALL_FULL && tries.tried().isEmpty()) {
        waitForSlot();
        return;
      }
      localAnswer(
          tries.tried().isEmpty() ? 503 : 502,
          failure != null ? failure : "no routable member in pool " + pool.name());
      return;
    }
    startTry(e);
  }

  private void waitForSlot() {
    queueSlot = new QueueSlot(fw, pool, ctx.executor(), this);
    if (!queueSlot.enter()) {
      queueSlot = null;
      localAnswer(503, QueueSlot.fullMessage(pool));
    }
  }

  @Override
  public boolean gone() {
    return done;
  }

  @Override
  public Tries tries() {
    return tries;
  }

  @Override
  public void admitted(Endpoint e) {
    queueSlot = null;
    if (e == null) {
      localAnswer(503, "no routable member in pool " + pool.name());
    } else {
      startTry(e);
    }
  }

  @Override
  public void queueTimedOut(String message) {
    if (!done) {
      localAnswer(503, message);
    }
  }

  private void startTry(Endpoint e) {
    current = e;
    attemptStart = fw.clock.getAsLong();
    deadlines.trySent(attemptStart);
    armTimer();
    fw.h2Connections(ctx.channel().eventLoop())
        .openStream(
            pool.upstreamTls() == null ? e.address() : pool.upstreamTls().key() + e.address(),
            e.host(),
            e.port(),
            pool.upstreamTls(),
            new MemberSide(),
            new H2MemberConnections.StreamListener() {
              @Override
              public void opened(Http2StreamChannel stream) {
                if (current != e) {
                  stream.close(); // the stream came after its try was given up
                } else {
                  streamOpened(stream);
                }
              }

              @Override
              public void failed(Throwable cause) {
                if (current != e) {
                  return;
                }
                tryFailed(
                    "member " + e.address() + " of pool " + pool.name() + " is unreachable",
                    "connect_failure");
              }
            });
  }

  private void streamOpened(Http2StreamChannel stream) {
    if (done) {
      stream.close();
      return;
    }
    upstream = stream;
    stream.write(new DefaultHttp2HeadersFrame(requestHeaders, requestEnded && queued.isEmpty()));
    Http2StreamFrame f;
    while ((f = queued.poll()) != null) {
      stream.write(f);
    }
    stream.flush();
  }

  /** A try that reached no member (unreachable, or a stream it refused): another member may. */
  private void tryFailed(String why, String outcome) {
    Endpoint e = current;
    long nanos = endAttempt();
    if (done) {
      return;
    }
    pool.router().failure(e, nanos);
    fw.observer.attempt(pool.name(), e, outcome, nanos);
    failure = why;
    upstream = null;
    if (!responseStarted && tries.shouldRetry(Tries.Outcome.CONNECT_FAILURE)) {
      fw.observer.retry(pool.name(), outcome);
      sendTry();
    } else if (!responseStarted) {
      localAnswer(502, why);
    } else {
      resetClient(Http2Error.INTERNAL_ERROR);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (upstream != null) {
      upstream.flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (upstream != null) {
      upstream.config().setAutoRead(ctx.channel().isWritable());
    }
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
    if (done) {
      return;
    }
    Endpoint e = current;
    long nanos = endAttempt();
    if (e != null) {
      fw.observer.attempt(pool.name(), e, "aborted", nanos);
    }
    if (upstream != null) {
      upstream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    }
    finish(499);
  }

  // ---- timeouts ------------------------------------------------------------------------------

  private void armTimer() {
    timer.arm();
  }

  private void due(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> deadlinePassed();
      case TRY -> tryTimedOut();
      case IDLE -> memberSilent();
      case HEDGE, NONE -> {}
    }
  }

  /** No response headers within the pool's per-try timeout. */
  private void tryTimedOut() {
    Endpoint e = current;
    memberFailed("timeout");
    cancelUpstream();
    endAttempt();
    String why =
        "member "
            + e.address()
            + " of pool "
            + pool.name()
            + " did not answer within "
            + pool.requests().perTryNanos() / 1_000_000L
            + " ms";
    failure = why;
    if (tries.shouldRetry(Tries.Outcome.TRY_TIMEOUT)) {
      fw.observer.retry(pool.name(), "timeout");
      attemptCounted = false;
      sendTry();
    } else {
      timeoutAnswer(why);
    }
  }

  /** The member went silent mid-exchange for the idle timeout. */
  private void memberSilent() {
    memberFailed("timeout");
    cancelUpstream();
    endAttempt();
    if (responseStarted) {
      resetClient(Http2Error.CANCEL);
    } else {
      timeoutAnswer("member of pool " + pool.name() + " did not answer in time");
    }
  }

  private void cancelUpstream() {
    if (upstream != null) {
      upstream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
      upstream = null;
    }
  }

  /** 504, or for gRPC DEADLINE_EXCEEDED, before any answer went out. */
  private void timeoutAnswer(String why) {
    if (grpc) {
      Http2Headers t = new DefaultHttp2Headers();
      t.status("200").set("content-type", "application/grpc");
      t.set("grpc-status", "4").set("grpc-message", why);
      ctx.writeAndFlush(new DefaultHttp2HeadersFrame(t, true));
      finish(504);
    } else {
      localAnswer(504, why);
    }
  }

  private void deadlinePassed() {
    Endpoint e = current;
    long nanos = endAttempt();
    if (e != null) {
      fw.observer.attempt(pool.name(), e, "timeout", nanos);
    }
    if (upstream != null) {
      upstream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
    }
    if (responseStarted && !grpc) {
      resetClient(Http2Error.CANCEL);
      return;
    }
    if (!grpc) {
      long ms = pool.requests().requestNanos() / 1_000_000L;
      localAnswer(
          504,
          "pool " + pool.name() + " did not answer within its request timeout of " + ms + " ms");
      return;
    }
    Http2Headers t = new DefaultHttp2Headers();
    if (!responseStarted) {
      t.status("200").set("content-type", "application/grpc");
    }
    t.set("grpc-status", "4").set("grpc-message", "deadline exceeded at the proxy");
    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(t, true));
    finish(504);
  }

  /** The member's end of the stream: its frames go to the client as they are. */
  private final class MemberSide extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext m, Object msg) {
      if (done || m.channel() != upstream) {
        ReferenceCountUtil.release(msg); // ended, or a given-up try's stream
        return;
      }
      deadlines.activity(fw.clock.getAsLong());
      if (msg instanceof Http2ResetFrame r) {
        if (!responseStarted && r.errorCode() == Http2Error.REFUSED_STREAM.code()) {
          tryFailed("member " + current.address() + " refused the stream", "reset");
        } else {
          memberFailed("reset");
          resetClient(
              Http2Error.valueOf(r.errorCode()) == null
                  ? Http2Error.INTERNAL_ERROR
                  : Http2Error.valueOf(r.errorCode()));
        }
        return;
      }
      if (msg instanceof Http2HeadersFrame h) {
        if (!responseStarted) {
          responseStarted = true;
          long now = fw.clock.getAsLong();
          deadlines.headReceived(now);
          pool.requests().latencies().record(now - attemptStart);
          CharSequence s = h.headers().status();
          status = s == null ? 502 : Integer.parseInt(s.toString());
          if (!(h.isEndStream() && grpcUnavailable(h.headers()))) {
            attemptResult(status >= 500);
          }
        }
        if (h.isEndStream() && grpcUnavailable(h.headers())) {
          attemptResult(true);
        }
        CharSequence answered = h.headers().status();
        if (setCookie != null && answered != null && answered.charAt(0) != '1') {
          h.headers().add("set-cookie", setCookie);
        }
        ctx.write(new DefaultHttp2HeadersFrame(h.headers(), h.isEndStream()));
        if (h.isEndStream()) {
          ended();
        }
        return;
      }
      if (msg instanceof Http2DataFrame d) {
        ctx.write(new DefaultHttp2DataFrame(d.content(), d.isEndStream(), d.padding()));
        if (d.isEndStream()) {
          ended();
        }
        return;
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext m) {
      ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext m) {
      ctx.channel().config().setAutoRead(m.channel().isWritable());
    }

    @Override
    public void channelInactive(ChannelHandlerContext m) {
      if (done || m.channel() != upstream) {
        return; // ended, or a given-up try's stream
      }
      if (!responseStarted) {
        tryFailed(
            "member "
                + (current == null ? "?" : current.address())
                + " of pool "
                + pool.name()
                + " closed the stream",
            "reset");
      } else {
        memberFailed("reset");
        resetClient(Http2Error.INTERNAL_ERROR);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext m, Throwable cause) {
      m.close();
    }
  }

  private boolean attemptCounted;

  private void attemptResult(boolean failed) {
    if (attemptCounted || current == null) {
      return;
    }
    attemptCounted = true;
    long nanos = fw.clock.getAsLong() - attemptStart;
    if (failed) {
      pool.router().failure(current, nanos);
    } else {
      pool.router().success(current, nanos);
    }
    fw.observer.attempt(pool.name(), current, failed ? "5xx" : (status / 100) + "xx", nanos);
  }

  private void memberFailed(String outcome) {
    if (current != null && !attemptCounted) {
      attemptCounted = true;
      long nanos = fw.clock.getAsLong() - attemptStart;
      pool.router().failure(current, nanos);
      fw.observer.attempt(pool.name(), current, outcome, nanos);
    }
  }

  private static boolean grpcUnavailable(Http2Headers h) {
    CharSequence s = h.get("grpc-status");
    return s != null && s.toString().equals("14");
  }

  private void ended() {
    ctx.flush();
    endAttempt();
    finish(status);
  }

  private void resetClient(Http2Error error) {
    ctx.writeAndFlush(new DefaultHttp2ResetFrame(error));
    endAttempt();
    finish(status == 0 ? 502 : status);
  }

  private void localAnswer(int code, String message) {
    endAttempt();
    Http2Headers h = new DefaultHttp2Headers();
    if (grpc) {
      h.status("200").set("content-type", "application/grpc");
      h.set("grpc-status", code == 508 ? "13" : "14").set("grpc-message", message);
      ctx.writeAndFlush(new DefaultHttp2HeadersFrame(h, true));
    } else {
      h.status(String.valueOf(code))
          .set("content-type", "text/plain; charset=utf-8")
          .set("x-replicapool-pool", pool.name());
      ctx.write(new DefaultHttp2HeadersFrame(h, false));
      ByteBuf body =
          ctx.alloc()
              .buffer()
              .writeBytes((message + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ctx.writeAndFlush(new DefaultHttp2DataFrame(body, true));
    }
    finish(code);
  }

  private long endAttempt() {
    Endpoint e = current;
    if (e == null) {
      return 0;
    }
    pool.requests().released(e);
    current = null;
    return fw.clock.getAsLong() - attemptStart;
  }

  private void finish(int code) {
    if (done) {
      return;
    }
    done = true;
    if (timer != null) {
      timer.stop();
    }
    if (queueSlot != null) {
      queueSlot.leave();
    }
    Http2StreamFrame f;
    while ((f = queued.poll()) != null) {
      ReferenceCountUtil.release(f);
    }
    fw.observer.response(pool.name(), code, fw.clock.getAsLong() - start);
  }

  /** The request's key for a ConsistentHash pool; Cookie headers count as one (RFC 9113 8.2.3). */
  private HashKey.Key hashKey(Http2Headers in) {
    HashKey k = pool.router().hashKey();
    if (k == null) {
      return HashKey.Key.NONE;
    }
    return k.of(
        name -> {
          if (!name.equals("cookie")) {
            CharSequence v = in.get(name);
            return v == null ? null : v.toString();
          }
          var values = in.getAll(name);
          return values.isEmpty() ? null : String.join("; ", values);
        },
        clientAddress());
  }

  private String clientAddress() {
    if (ctx.channel().parent() != null
        && ctx.channel().parent().remoteAddress() instanceof InetSocketAddress a) {
      return a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    }
    return null;
  }

  /** A frame for the other stream: the same content, no stream of its own yet. */
  private static Http2StreamFrame copy(Http2StreamFrame f) {
    if (f instanceof Http2DataFrame d) {
      return new DefaultHttp2DataFrame(d.content(), d.isEndStream(), d.padding());
    }
    Http2HeadersFrame h = (Http2HeadersFrame) f;
    return new DefaultHttp2HeadersFrame(h.headers(), h.isEndStream());
  }

  private static boolean endsStream(Http2StreamFrame f) {
    return f instanceof Http2DataFrame d ? d.isEndStream() : ((Http2HeadersFrame) f).isEndStream();
  }

  /** gRPC's {@code grpc-timeout}: 1-8 digits and a unit (H M S m u n); 0 when absent or invalid. */
  static long grpcTimeoutNanos(CharSequence v) {
    if (v == null || v.length() < 2 || v.length() > 9) {
      return 0;
    }
    long n = 0;
    for (int i = 0; i < v.length() - 1; i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      n = n * 10 + (c - '0');
    }
    return switch (v.charAt(v.length() - 1)) {
      case 'H' -> TimeUnit.HOURS.toNanos(n);
      case 'M' -> TimeUnit.MINUTES.toNanos(n);
      case 'S' -> TimeUnit.SECONDS.toNanos(n);
      case 'm' -> TimeUnit.MILLISECONDS.toNanos(n);
      case 'u' -> TimeUnit.MICROSECONDS.toNanos(n);
      case 'n' -> n;
      default -> 0;
    };
  }
}
