package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.handler.codec.http2.Http2Error;
import java.util.function.Consumer;

/**
 * What a deadline of an {@link H2StreamForwarder}'s stream does when it passes (its {@link
 * DeadlineTimer} tells): the per-try timeout gives the try up and tries another member when the
 * retries allow, else answers 504; the idle timeout gives the try up and resets an answer under
 * way; the request timeout ends the stream. With hedges out, the per-try timeout gives up the
 * oldest try and waits for the others. gRPC calls get DEADLINE_EXCEEDED instead of a 504.
 */
final class H2StreamTimeouts implements Consumer<Deadlines.Due> {
  private final H2StreamForwarder stream;
  private final PoolRuntime pool;

  H2StreamTimeouts(H2StreamForwarder stream, PoolRuntime pool) {
    this.stream = stream;
    this.pool = pool;
  }

  @Override
  public void accept(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> stream.deadlinePassed();
      case TRY -> tryTimedOut();
      case IDLE -> memberSilent();
      case CLIENT_STALLED -> stream.clientStalled();
      case CLIENT_SILENT -> stream.clientSilent();
      case HEDGE -> stream.hedgeDue();
      case NONE -> {}
    }
  }

  /** No response headers within the pool's per-try timeout. */
  private void tryTimedOut() {
    Endpoint e = stream.member();
    long ms = pool.requests().perTryNanos() / 1_000_000L;
    stream.tryTimedOut(pool.aboutMember(e, "did not answer within " + ms + " ms"));
  }

  /** The member went silent mid-exchange for the idle timeout. */
  private void memberSilent() {
    stream.abandonAll("timeout");
    if (stream.answerStarted()) {
      stream.resetClient(Http2Error.CANCEL);
    } else {
      stream.timeoutAnswer("member of pool " + pool.name() + " did not answer in time");
    }
  }
}
