package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.MemberConnections;
import dev.replicapool.dataplane.wire.HeadScanner;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * A hedge of an HTTP/1.x request: the same request (head and kept body) sent to another member
 * while the first try waits. It only collects what its member sends until an answer's head is
 * complete; then its {@link Hedges} either hands it to the exchange (its connection and the bytes
 * so far, parsed as the exchange parses any answer) or cancels it. Touched on the client's event
 * loop only.
 */
final class HedgeTry extends H1Try implements H1Upstream.User, MemberConnections.ConnectListener {
  /** Where a hedge reports ({@link Hedges}). */
  interface Owner {
    /** Hedge {@code h} has its connection {@code ch}: the whole request goes out on it. */
    void sendRequest(HedgeTry h, Channel ch);

    /** Hedge {@code h} has a complete answer's head (or one too large). */
    void answered(HedgeTry h);

    /** Hedge {@code h} failed before any answer ({@code outcome}, {@code label}). */
    void failed(HedgeTry h, Tries.Outcome outcome, String label);
  }

  private static final int MAX_HEAD = 64 * 1024;

  private final Owner hedges;
  private H1Upstream upstream;
  private ByteBuf received;
  private boolean done;

  HedgeTry(Owner hedges, Endpoint member, long sentAt) {
    super(member, sentAt);
    this.hedges = hedges;
  }

  @Override
  public void connected(H1Upstream c) {
    if (done) {
      c.release(); // cancelled meanwhile: nothing was written
      return;
    }
    upstream = c;
    c.attach(this);
    hedges.sendRequest(this, c.channel());
  }

  @Override
  public void failed(Throwable cause) {
    if (!done) {
      done = true;
      hedges.failed(this, Tries.Outcome.CONNECT_FAILURE, "connect_failure");
    }
  }

  @Override
  public void memberBytes(ByteBuf buf) {
    if (done) {
      buf.release();
      return;
    }
    if (received == null) {
      received = buf;
    } else {
      ByteBuf all = buf.alloc().buffer(received.readableBytes() + buf.readableBytes());
      all.writeBytes(received);
      all.writeBytes(buf);
      received.release();
      buf.release();
      received = all;
    }
    int len = HeadScanner.headLength(received, MAX_HEAD, MAX_HEAD);
    if (len != 0) {
      hedges.answered(this); // a complete head, or one too large: the exchange decides
    }
  }

  @Override
  public void memberClosed() {
    upstream = null;
    if (!done) {
      done = true;
      hedges.failed(this, Tries.Outcome.RESET_BEFORE_RESPONSE, "reset");
    }
  }

  /**
   * Hands its connection (now the exchange's) over; the bytes so far follow via {@link
   * #takeReceived}.
   */
  H1Upstream adopt(H1Upstream.User user) {
    done = true;
    H1Upstream u = upstream;
    upstream = null;
    u.attach(user);
    return u;
  }

  ByteBuf takeReceived() {
    ByteBuf r = received;
    received = null;
    return r;
  }

  /** Another try answered first, or the request ended: the hedge's connection is not reused. */
  @Override
  void cancel() {
    done = true;
    if (received != null) {
      received.release();
      received = null;
    }
    H1Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.discard();
    }
  }
}
