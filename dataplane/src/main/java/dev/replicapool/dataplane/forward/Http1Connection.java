package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.route.Routes;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.wire.LocalAnswer;
import dev.replicapool.dataplane.wire.RequestHead;
import dev.replicapool.dataplane.wire.ResponseHead;
import dev.replicapool.dataplane.wire.WireError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/1.x side of one client connection: reads request heads ({@link RequestHeadReader}),
 * routes each to its pool ({@link Http1Routing}), passes its body on as {@link RequestBodyFraming}
 * frames it, and runs one {@link Http1Exchange} at a time; pipelined requests wait their turn in
 * the {@link ReadBuffer}. Bounds how long a request head may take (slowloris) from the moment the
 * connection is accepted, and after each response ({@link HeaderTimer}). With h2c on, a connection
 * that opens with the HTTP/2 preface is handed to the HTTP/2 side instead.
 *
 * <p>One instance per connection, touched on its event loop only. Why it is over 300 lines: it is
 * the state machine of one connection ({@link Reading}; pipelined bytes, drain, half-close), and
 * each transition reads and sets the others' state; split in two, each half would have to reach
 * into the other's fields. What needs none of that state lives in the classes above.
 */
public final class Http1Connection extends ChannelInboundHandlerAdapter
    implements Http1Exchange.Client, HeaderTimer.Owner {
  private final Forwarding fw;
  private final Http1Setup setup;
  private ChannelHandlerContext ctx;
  private final ReadBuffer in = new ReadBuffer();
  private final RequestHead head = new RequestHead();
  private final ResponseHead resp = new ResponseHead();
  private final RequestHeadReader headReader;
  private final RequestBodyFraming bodyFraming;
  private HeaderTimer headerTimer;
  private Http1Exchange ex;

  /** Where reading the connection stands: one request at a time, its head, then its body. */
  private enum Reading {
    /** With h2c on, before the first bytes tell HTTP/1.x from the HTTP/2 preface. */
    DETECTING,
    /** Waiting for or reading a request head (also while the last response still goes out). */
    HEAD,
    /** The current request's body, passed on to its exchange. */
    BODY,
    /**
     * The rest of a body already answered: read and dropped so that the next request can follow.
     */
    DISCARDING,
    /** After 101 Switching Protocols: bytes flow both ways, not read as HTTP. */
    TUNNEL,
    /** Nothing more is read: the connection closes, or the HTTP/2 side took it over. */
    CLOSED
  }

  private Reading reading;
  private Tunnels.Tunnel openTunnel;
  private String clientAddress;
  private boolean readPaused;

  /**
   * Close after the current response: its request asked for it (RFC 9112 9.3, 9.6), or its response
   * did.
   */
  private boolean closeAfterThis;

  /** The client half-closed: answer what it sent, then close. */
  private boolean inputClosed;

  /** Close once the current response is done ({@link #drain}). */
  private boolean draining;

  public Http1Connection(Forwarding fw, Http1Setup setup) {
    this.fw = fw;
    this.setup = setup;
    this.reading = setup.h2cPreface() ? Reading.DETECTING : Reading.HEAD;
    this.headReader = new RequestHeadReader(fw.settings, head, setup.h2cPreface());
    this.bodyFraming = new RequestBodyFraming(fw.settings.maxBodyBytes());
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
      clientAddress = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    }
    headerTimer = new HeaderTimer(ctx, this);
    armHeaderTimer(fw.settings.requestHeaderTimeoutMillis());
  }

  // ---- reading ------------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf buf = (ByteBuf) msg;
    if (reading == Reading.CLOSED) {
      buf.release();
      return;
    }
    if (reading == Reading.TUNNEL) {
      openTunnel.upstream().write(buf, openTunnel.upstream().voidPromise());
      return;
    }
    if (inBody() && !in.hasBytes()) {
      body(buf);
      return;
    }
    in.add(buf);
    process();
  }

  /** Works through what is buffered: heads, then body bytes, one request at a time. */
  private void process() {
    while (in.hasBytes() && reading != Reading.CLOSED && reading != Reading.TUNNEL) {
      if (inBody()) {
        body(in.takeAll());
        continue;
      }
      if (ex != null) {
        pauseReadingIfBuffered();
        return; // pipelined: waits for the response before it
      }
      if (reading == Reading.DETECTING && !detect()) {
        return;
      }
      if (!startRequest()) {
        return;
      }
    }
    in.releaseIfUsedUp();
  }

  /** With h2c on: is this the HTTP/2 preface? False while it cannot tell yet or it switched. */
  private boolean detect() {
    int preface = RequestHeadReader.preface(in.peek());
    if (preface < 0) {
      reading = Reading.HEAD;
      return true;
    }
    if (preface == 0) {
      return false;
    }
    ByteBuf received = in.takeAll();
    cancelHeaderTimer();
    reading = Reading.CLOSED; // this handler is done; the HTTP/2 side owns the connection now
    setup.h2().switchToH2(ctx, received);
    return false;
  }

  /** Parses and starts the next request; false when more bytes are needed or it was refused. */
  private boolean startRequest() {
    int len = headReader.read(in.peek());
    if (len == RequestHeadReader.INCOMPLETE) {
      return false;
    }
    if (len == RequestHeadReader.NOT_HTTP) {
      reading = Reading.CLOSED;
      cancelHeaderTimer();
      in.release();
      ctx.close();
      return false;
    }
    if (len == RequestHeadReader.REFUSED) {
      refuse(headReader.error());
      return false;
    }
    cancelHeaderTimer();
    route();
    return true;
  }

  private void route() {
    Routes.Route r = Http1Routing.route(fw, setup.dedicatedPool(), head);
    PoolRuntime pool = r.pool();
    closeAfterThis = head.closeAfter();
    boolean sentContinue = false;
    if (r.message() == null && head.expectContinue() && !head.bodyless()) {
      ctx.write(ctx.alloc().buffer(LocalAnswer.CONTINUE.length).writeBytes(LocalAnswer.CONTINUE));
      sentContinue = true;
    }
    beginBody();
    if (r.message() != null) {
      // Answered here; the body (if any) is read and dropped so the next request can follow.
      localAnswer(r.status(), r.message(), pool == null ? "none" : pool.name());
      Http1Routing.logLocal(fw, setup, head, r, clientAddress);
      return;
    }
    ex =
        Http1Routing.exchange(
            this, fw, setup, pool, head, resp, clientAddress, closeAfterThis, sentContinue);
    ex.start();
  }

  private void beginBody() {
    reading = head.bodyless() ? Reading.HEAD : Reading.BODY;
    bodyFraming.begin(head);
  }

  /** Body bytes of the current request; what follows its end stays buffered for the next one. */
  private void body(ByteBuf buf) {
    int readable = buf.readableBytes();
    int take = bodyFraming.take(buf);
    if (take == RequestBodyFraming.MALFORMED) {
      buf.release();
      clientBodyFailed(400, "malformed request body");
      return;
    }
    if (take == RequestBodyFraming.TOO_LARGE) {
      buf.release();
      clientBodyFailed(413, "request body exceeds " + fw.settings.maxBodyBytes() + " bytes");
      return;
    }
    boolean last = bodyFraming.last();
    ByteBuf part = take == readable ? buf : buf.readRetainedSlice(take);
    if (ex != null && reading != Reading.DISCARDING) {
      ex.requestBody(part, last); // which may answer, or close, at once
    } else {
      part.release();
    }
    if (last && reading == Reading.BODY) {
      reading = Reading.HEAD;
    } else if (last && reading == Reading.DISCARDING) {
      reading = Reading.HEAD;
      requestFinished(closeAfterThis);
    }
    if (take < readable) {
      in.add(buf);
      if (!inBody()) {
        process();
      }
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (reading == Reading.TUNNEL) {
      openTunnel.upstream().flush();
    } else if (ex != null) {
      ex.flushUpstream();
    }
    ctx.flush();
  }

  // ---- what the exchange tells ---------------------------------------------------------------

  @Override
  public ByteBufAllocator alloc() {
    return ctx.alloc();
  }

  @Override
  public EventLoop eventLoop() {
    return ctx.channel().eventLoop();
  }

  /** Whether the client reads answers while it sends (an HTTP/2 stream). */
  @Override
  public boolean fullDuplex() {
    return setup.overH2();
  }

  @Override
  public boolean http10() {
    return head.http10();
  }

  @Override
  public boolean draining() {
    return draining || fw.draining();
  }

  @Override
  public void write(ByteBuf b) {
    ctx.write(b, ctx.voidPromise());
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public void pauseReading() {
    if (!readPaused) {
      readPaused = true;
      ctx.channel().config().setAutoRead(false);
      if (ex != null) {
        ex.clientReadsPaused(true);
      }
    }
  }

  @Override
  public void resumeReading() {
    if (readPaused) {
      readPaused = false;
      ctx.channel().config().setAutoRead(true);
      if (ex != null) {
        ex.clientReadsPaused(false);
      }
    }
  }

  private void pauseReadingIfBuffered() {
    if (in.readableBytes() > fw.settings.maxHeaderSize() * 2) {
      pauseReading(); // pipelined requests beyond what one head may take wait in the socket
    }
  }

  /** The proxy's own answer for the current request; returns its length in bytes. */
  @Override
  public int answer(int status, String message, String pool, boolean close) {
    ByteBuf out = LocalAnswer.encode(ctx.alloc(), status, message, pool, close || draining());
    int bytes = out.readableBytes();
    ctx.writeAndFlush(out, ctx.voidPromise());
    return bytes;
  }

  private void localAnswer(int status, String message, String pool) {
    answer(status, message, pool, closeAfterThis);
    fw.observer.response(pool, status, 0);
    if (inBody()) {
      reading = Reading.DISCARDING; // the rest of the body is read and dropped
    } else {
      requestFinished(closeAfterThis);
    }
  }

  /** The exchange's response is complete (or answered locally). */
  @Override
  public void responseDone(Http1Exchange done, boolean close) {
    if (ex != done) {
      return;
    }
    ex = null;
    if (inBody()) {
      // Answered before the body ended: drop the rest of it, then go on (or close when asked).
      reading = Reading.DISCARDING;
      closeAfterThis |= close;
      return;
    }
    requestFinished(close);
  }

  private void requestFinished(boolean close) {
    if (close || closeAfterThis || draining()) {
      closeSoon();
      return;
    }
    resumeReading();
    armHeaderTimer(
        fw.settings.clientIdleTimeoutSeconds() > 0
            ? TimeUnit.SECONDS.toMillis(fw.settings.clientIdleTimeoutSeconds())
            : fw.settings.requestHeaderTimeoutMillis());
    if (in.hasBytes()) {
      process();
    }
    if (inputClosed && ex == null && reading != Reading.CLOSED && !in.hasBytes()) {
      closeSoon(); // the client sent nothing more and everything it sent is answered
    }
  }

  /** The response broke off half-way: the client cannot be answered properly. */
  @Override
  public void brokenResponse() {
    ex = null;
    reading = Reading.CLOSED;
    ctx.flush();
    ctx.close();
  }

  /** The body is too large or cannot be framed: answered at once, then the connection closes. */
  private void clientBodyFailed(int status, String message) {
    boolean discarded = reading == Reading.DISCARDING;
    reading = Reading.HEAD;
    if (ex != null) {
      Http1Exchange e = ex;
      ex = null;
      e.abort(status, message);
    } else if (!discarded) {
      answer(status, message, "none", true);
    }
    closeSoon();
  }

  private void refuse(WireError e) {
    answer(e.status(), e.message(), null, true);
    fw.observer.response("none", e.status(), 0);
    closeSoon();
  }

  private void closeSoon() {
    reading = Reading.CLOSED;
    cancelHeaderTimer();
    in.release();
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** 101 Switching Protocols: bytes flow both ways over {@code up}; its try stays in flight. */
  @Override
  public void tunnel(H1Upstream up, Endpoint member, ByteBuf firstBytes) {
    ex = null;
    reading = Reading.TUNNEL;
    openTunnel = fw.tunnels.opened(member, ctx.channel(), up.channel());
    up.channel().pipeline().replace(up, "tunnel", new TunnelEnd(ctx.channel(), () -> {}));
    if (firstBytes.isReadable()) {
      ctx.write(firstBytes, ctx.voidPromise());
    } else {
      firstBytes.release();
    }
    ctx.flush();
    if (in.hasBytes()) {
      up.channel().writeAndFlush(in.takeAll(), up.channel().voidPromise());
    }
    resumeReading();
  }

  /**
   * The client half-closed: what it sent is answered, then the connection closes. A body cut off by
   * it can never end: the request is given up as by a client that went away.
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (!(evt instanceof ChannelInputShutdownEvent)) {
      ctx.fireUserEventTriggered(evt);
      return;
    }
    inputClosed = true;
    if (reading == Reading.TUNNEL) {
      ctx.close();
    } else if (inBody()) {
      Http1Exchange e = ex;
      ex = null;
      if (e != null) {
        e.abort(0, null);
      }
      closeSoon();
    } else if (ex == null && !in.hasBytes()) {
      closeSoon();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    boolean writable = ctx.channel().isWritable();
    if (reading == Reading.TUNNEL) {
      openTunnel.upstream().config().setAutoRead(writable);
    } else if (ex != null) {
      ex.clientWritable(writable);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    reading = Reading.CLOSED;
    cancelHeaderTimer();
    in.release();
    Http1Exchange e = ex;
    ex = null;
    if (e != null) {
      e.abort(0, null); // the client went away: not the member's doing
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // resets and the like; channelInactive cleans up
  }

  /**
   * Drains a client connection: an HTTP/1.x one closes now when idle, else after its current
   * response; an HTTP/2 one closes gracefully (GOAWAY, then its open streams finish). On the
   * connection's event loop.
   */
  public static void drain(io.netty.channel.Channel c) {
    Http1Connection h = c.pipeline().get(Http1Connection.class);
    if (h == null) {
      c.close();
      return;
    }
    h.draining = true;
    if (h.ex == null && h.betweenRequests()) {
      h.reading = Reading.CLOSED;
      c.close();
    }
  }

  // ---- header timeouts ----------------------------------------------------------------------

  private void armHeaderTimer(long millis) {
    headerTimer.arm(millis);
  }

  private void cancelHeaderTimer() {
    headerTimer.cancel();
  }

  @Override
  public boolean closing() {
    return reading == Reading.CLOSED;
  }

  /** No request head in time (slowloris, or an idle keep-alive connection). */
  @Override
  public void headerTimedOut() {
    if (ex == null && betweenRequests()) {
      reading = Reading.CLOSED;
      ctx.close();
    }
  }

  /** A request's body is being read (passed on, or dropped after an early answer). */
  private boolean inBody() {
    return reading == Reading.BODY || reading == Reading.DISCARDING;
  }

  /** No body being read and no tunnel: a close loses nothing the client sent. */
  private boolean betweenRequests() {
    return !inBody() && reading != Reading.TUNNEL;
  }

  /** Releases what the handler holds when it leaves the pipeline (a switch to HTTP/2). */
  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    in.release();
  }
}
