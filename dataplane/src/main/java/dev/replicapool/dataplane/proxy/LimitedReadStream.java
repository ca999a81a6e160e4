package dev.replicapool.dataplane.proxy;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * Passes a request body through until it exceeds a limit, then fails the stream (so the pipe to the
 * member stops and the request is reset) and tells the owner.
 */
final class LimitedReadStream implements ReadStream<Buffer> {
  private final ReadStream<Buffer> source;
  private final long limit;
  private final Runnable onExceeded;
  private long seen;
  private boolean exceeded;
  private Handler<Throwable> exceptionHandler;
  private Handler<Buffer> handler;
  private Handler<Void> endHandler;

  LimitedReadStream(ReadStream<Buffer> source, long limit, Runnable onExceeded) {
    this.source = source;
    this.limit = limit;
    this.onExceeded = onExceeded;
  }

  @Override
  public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
    this.exceptionHandler = handler;
    source.exceptionHandler(handler);
    return this;
  }

  @Override
  public ReadStream<Buffer> handler(Handler<Buffer> handler) {
    this.handler = handler;
    if (handler == null) {
      source.handler(null);
    } else {
      source.handler(this::onData);
    }
    return this;
  }

  private void onData(Buffer b) {
    if (exceeded) {
      return;
    }
    seen += b.length();
    if (seen > limit) {
      exceeded = true;
      onExceeded.run();
      Handler<Throwable> h = exceptionHandler;
      if (h != null) {
        h.handle(new IllegalStateException("request body exceeds " + limit + " bytes"));
      }
      return;
    }
    Handler<Buffer> h = handler;
    if (h != null) {
      h.handle(b);
    }
  }

  @Override
  public ReadStream<Buffer> pause() {
    source.pause();
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

  @Override
  public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
    this.endHandler = endHandler;
    source.endHandler(
        v -> {
          Handler<Void> h = this.endHandler;
          if (!exceeded && h != null) {
            h.handle(v);
          }
        });
    return this;
  }
}
