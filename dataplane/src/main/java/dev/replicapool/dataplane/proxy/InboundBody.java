package dev.replicapool.dataplane.proxy;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * A client's request body on its way to a member: the stream vertx-http-proxy pipes from. It
 * watches the client's side from the moment the request is routed, before anything is piped:
 *
 * <ul>
 *   <li>past {@code limit} bytes (bodies without Content-Length; -1: no limit) it tells the owner;
 *   <li>an error on the client's request (connection closed, stream reset, a chunk Vert.x cannot
 *       frame) goes to the owner;
 *   <li>{@link #cancel} (the owner gave the request up, or the response is complete while the body
 *       is not) stops forwarding, fails the pipe, and lets the rest of the body be read and
 *       dropped.
 * </ul>
 *
 * A failed pipe makes vertx-http-proxy reset the member request, which {@link UpstreamRequest}
 * turns into closing its connection when part of the body was written already.
 */
final class InboundBody implements ReadStream<Buffer> {
  /** Told about the client's side; called on the request's event loop. */
  interface Owner {
    void tooLarge();

    void failed(Throwable cause);
  }

  private final ReadStream<Buffer> source;
  private final long limit;
  private final Owner owner;
  private long seen;
  private boolean ended;
  private Throwable cancelled;
  private Handler<Buffer> handler;
  private Handler<Void> endHandler;
  private Handler<Throwable> exceptionHandler;

  InboundBody(ReadStream<Buffer> source, long limit, Owner owner) {
    this.source = source;
    this.limit = limit;
    this.owner = owner;
    source.exceptionHandler(this::onSourceFailure);
    source.endHandler(this::onSourceEnd);
  }

  /**
   * Stops forwarding: fails the pipe with {@code cause} and drops what the client still sends. A
   * no-op once the body ended or was cancelled.
   */
  void cancel(Throwable cause) {
    if (ended || cancelled != null) {
      return;
    }
    cancelled = cause;
    source.resume();
    Handler<Throwable> h = exceptionHandler;
    if (h != null) {
      h.handle(cause);
    }
  }

  private void onData(Buffer b) {
    if (cancelled != null) {
      return;
    }
    seen += b.length();
    if (limit >= 0 && seen > limit) {
      owner.tooLarge(); // records it (so nothing counts it against the member), then cancels
      cancel(new IllegalStateException("request body exceeds " + limit + " bytes"));
      return;
    }
    Handler<Buffer> h = handler;
    if (h != null) {
      h.handle(b);
    }
  }

  private void onSourceFailure(Throwable t) {
    if (ended || cancelled != null) {
      return;
    }
    owner.failed(t);
    cancel(t);
  }

  private void onSourceEnd(Void v) {
    if (cancelled != null) {
      return;
    }
    ended = true;
    Handler<Void> h = endHandler;
    if (h != null) {
      h.handle(null);
    }
  }

  @Override
  public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
    this.exceptionHandler = handler;
    if (handler != null && cancelled != null) {
      handler.handle(cancelled); // a pipe set up after the cancel fails at once
    }
    return this;
  }

  @Override
  public ReadStream<Buffer> handler(Handler<Buffer> handler) {
    this.handler = handler;
    if (cancelled == null) {
      source.handler(handler == null ? null : this::onData);
    }
    return this;
  }

  @Override
  public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
    this.endHandler = endHandler;
    if (endHandler != null && ended) {
      endHandler.handle(null); // a pipe set up after the end completes at once
    }
    return this;
  }

  @Override
  public ReadStream<Buffer> pause() {
    if (cancelled == null) {
      source.pause();
    }
    return this;
  }

  @Override
  public ReadStream<Buffer> resume() {
    source.resume();
    return this;
  }

  @Override
  public ReadStream<Buffer> fetch(long amount) {
    source.fetch(amount);
    return this;
  }
}
