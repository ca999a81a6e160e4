package dev.replicapool.dataplane.proxy;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientForm;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpFrame;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.StreamPriority;
import io.vertx.core.net.HostAndPort;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The request to a member, as vertx-http-proxy drives it, with one rule added: a request whose body
 * was only partly written is never reset, its connection is closed instead.
 *
 * <p>Why: on a reset, Vert.x 5.0.7's HTTP/1.1 client closes the connection only while the member's
 * response is still awaited. Once that response has ended (a member may answer before it has read
 * the whole body, as the sample replica does), a reset just takes the request off the connection
 * and hands the connection back to the pool, half-way through the body. Its encoder still expects
 * body chunks, so the next request on it fails inside Netty ("unexpected message type") without a
 * byte sent and without failing the request, which then waits for an answer that never comes.
 * Closing the connection instead takes it out of the pool before its requests are failed, so it is
 * never reused. A request with nothing written yet, or written completely, is reset as before (and
 * so is any request over HTTP/2, where a reset ends one stream only).
 *
 * <p>vertx-http-proxy resets with a cause only from its handler of errors on the client's response
 * (connection closed, stream reset, a body Vert.x cannot frame): such a cause goes to {@code
 * clientFailure} first, so that the proxy does not count it against the member.
 *
 * <p>Touched on the request's event loop only.
 */
final class UpstreamRequest implements HttpClientRequest {
  private final HttpClientRequest delegate;
  private final Consumer<Throwable> clientFailure;
  private boolean started;
  private boolean sent;
  private boolean aborted;

  UpstreamRequest(HttpClientRequest delegate, Consumer<Throwable> clientFailure) {
    this.delegate = delegate;
    this.clientFailure = clientFailure;
  }

  /** Gives the request up (see the class comment); a no-op the second time. */
  Future<Void> abort() {
    return abort(0, null);
  }

  private Future<Void> abort(long code, Throwable cause) {
    if (aborted) {
      return Future.succeededFuture();
    }
    aborted = true;
    if (started && !sent && delegate.version() != HttpVersion.HTTP_2) {
      return delegate.connection().close(); // graceful: what was written is flushed first
    }
    return cause == null ? delegate.reset(code) : delegate.reset(code, cause);
  }

  /** Whether the whole request, body included, was written to the connection. */
  boolean sent() {
    return sent;
  }

  private Future<Void> started(Future<Void> write) {
    started = true;
    return write;
  }

  private Future<Void> ending(Future<Void> end) {
    started = true;
    return end.andThen(
        ar -> {
          if (ar.succeeded()) {
            sent = true;
          }
        });
  }

  @Override
  public Future<Void> reset(long code) {
    return abort(code, null);
  }

  @Override
  public Future<Void> reset(long code, Throwable cause) {
    if (cause != null && !aborted) {
      clientFailure.accept(cause);
    }
    return abort(code, cause);
  }

  @Override
  public Future<Void> write(Buffer data) {
    return started(delegate.write(data));
  }

  @Override
  public Future<Void> write(String chunk) {
    return started(delegate.write(chunk));
  }

  @Override
  public Future<Void> write(String chunk, String enc) {
    return started(delegate.write(chunk, enc));
  }

  @Override
  public Future<Void> writeCustomFrame(int type, int flags, Buffer payload) {
    return started(delegate.writeCustomFrame(type, flags, payload));
  }

  @Override
  public Future<Void> writeCustomFrame(HttpFrame frame) {
    return started(delegate.writeCustomFrame(frame));
  }

  @Override
  public Future<Void> sendHead() {
    return started(delegate.sendHead());
  }

  @Override
  public Future<Void> end(String chunk) {
    return ending(delegate.end(chunk));
  }

  @Override
  public Future<Void> end(String chunk, String enc) {
    return ending(delegate.end(chunk, enc));
  }

  @Override
  public Future<Void> end(Buffer chunk) {
    return ending(delegate.end(chunk));
  }

  @Override
  public Future<Void> end() {
    return ending(delegate.end());
  }

  @Override
  public Future<HttpClientResponse> send(ClientForm form) {
    started = true; // when its end is written is not known: never counted as sent
    return delegate.send(form);
  }

  @Override
  public Future<HttpClientResponse> connect() {
    started = true;
    return delegate.connect();
  }

  // ---- the rest is delegated as is ----

  @Override
  public Future<HttpClientResponse> response() {
    return delegate.response();
  }

  @Override
  public HttpConnection connection() {
    return delegate.connection();
  }

  @Override
  public HttpClientRequest exceptionHandler(Handler<Throwable> handler) {
    delegate.exceptionHandler(handler);
    return this;
  }

  @Override
  public HttpClientRequest setWriteQueueMaxSize(int maxSize) {
    delegate.setWriteQueueMaxSize(maxSize);
    return this;
  }

  @Override
  public boolean writeQueueFull() {
    return delegate.writeQueueFull();
  }

  @Override
  public HttpClientRequest drainHandler(Handler<Void> handler) {
    delegate.drainHandler(handler);
    return this;
  }

  @Override
  public HttpClientRequest authority(HostAndPort authority) {
    delegate.authority(authority);
    return this;
  }

  @Override
  public HttpClientRequest setFollowRedirects(boolean followRedirects) {
    delegate.setFollowRedirects(followRedirects);
    return this;
  }

  @Override
  public boolean isFollowRedirects() {
    return delegate.isFollowRedirects();
  }

  @Override
  public HttpClientRequest setMaxRedirects(int maxRedirects) {
    delegate.setMaxRedirects(maxRedirects);
    return this;
  }

  @Override
  public int getMaxRedirects() {
    return delegate.getMaxRedirects();
  }

  @Override
  public int numberOfRedirections() {
    return delegate.numberOfRedirections();
  }

  @Override
  public HttpClientRequest setChunked(boolean chunked) {
    delegate.setChunked(chunked);
    return this;
  }

  @Override
  public boolean isChunked() {
    return delegate.isChunked();
  }

  @Override
  public HttpMethod getMethod() {
    return delegate.getMethod();
  }

  @Override
  public HttpClientRequest setMethod(HttpMethod method) {
    delegate.setMethod(method);
    return this;
  }

  @Override
  public String absoluteURI() {
    return delegate.absoluteURI();
  }

  @Override
  public String getURI() {
    return delegate.getURI();
  }

  @Override
  public HttpClientRequest setURI(String uri) {
    delegate.setURI(uri);
    return this;
  }

  @Override
  public String path() {
    return delegate.path();
  }

  @Override
  public String query() {
    return delegate.query();
  }

  @Override
  public MultiMap headers() {
    return delegate.headers();
  }

  @Override
  public HttpClientRequest putHeader(String name, String value) {
    delegate.putHeader(name, value);
    return this;
  }

  @Override
  public HttpClientRequest putHeader(CharSequence name, CharSequence value) {
    delegate.putHeader(name, value);
    return this;
  }

  @Override
  public HttpClientRequest putHeader(String name, Iterable<String> values) {
    delegate.putHeader(name, values);
    return this;
  }

  @Override
  public HttpClientRequest putHeader(CharSequence name, Iterable<CharSequence> values) {
    delegate.putHeader(name, values);
    return this;
  }

  @Override
  public HttpClientRequest traceOperation(String op) {
    delegate.traceOperation(op);
    return this;
  }

  @Override
  public String traceOperation() {
    return delegate.traceOperation();
  }

  @Override
  public HttpVersion version() {
    return delegate.version();
  }

  @Override
  public HttpClientRequest continueHandler(Handler<Void> handler) {
    delegate.continueHandler(handler);
    return this;
  }

  @Override
  public HttpClientRequest earlyHintsHandler(Handler<MultiMap> handler) {
    delegate.earlyHintsHandler(handler);
    return this;
  }

  @Override
  public HttpClientRequest redirectHandler(
      Function<HttpClientResponse, Future<HttpClientRequest>> handler) {
    delegate.redirectHandler(handler);
    return this;
  }

  @Override
  public HttpClientRequest idleTimeout(long timeout) {
    delegate.idleTimeout(timeout);
    return this;
  }

  @Override
  public HttpClientRequest pushHandler(Handler<HttpClientRequest> handler) {
    delegate.pushHandler(handler);
    return this;
  }

  @Override
  public int streamId() {
    return delegate.streamId();
  }

  @Override
  public HttpClientRequest setStreamPriority(StreamPriority streamPriority) {
    delegate.setStreamPriority(streamPriority);
    return this;
  }

  @Override
  public StreamPriority getStreamPriority() {
    return delegate.getStreamPriority();
  }
}
