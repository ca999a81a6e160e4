package dev.replicapool.dataplane.proxy;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.httpproxy.HttpProxy;
import java.util.function.LongSupplier;

/**
 * Entry point of every traffic request: refuses what RFC 9112 says to refuse ({@link
 * RequestChecks}), a declared body above the limit (413) or a Content-Length that is not a number
 * (400) before anything is read, then hands the request to vertx-http-proxy, whose {@link
 * RoutingInterceptor} does the rest. Malformed request lines and oversized headers never get here:
 * Vert.x answers them (400, 414, 431) and closes the connection.
 */
final class TrafficHandler implements Handler<HttpServerRequest> {
  private final HttpProxy proxy;
  private final long maxBodyBytes;
  private final ProxyObserver observer;
  private final LongSupplier nanoClock;

  TrafficHandler(HttpProxy proxy, long maxBodyBytes, ProxyObserver observer, LongSupplier clock) {
    this.proxy = proxy;
    this.maxBodyBytes = maxBodyBytes;
    this.observer = observer;
    this.nanoClock = clock;
  }

  @Override
  public void handle(HttpServerRequest req) {
    RequestChecks.Refusal refusal = RequestChecks.check(req);
    if (refusal != null) {
      refuse(req, refusal.status(), refusal.message());
      return;
    }
    if (RequestChecks.mustClose(req)) {
      // Closed after the response by ListenerManager's end hook; say so to the client.
      req.response().putHeader("connection", "close");
    }
    String cl = req.getHeader("content-length");
    if (cl != null) {
      long length = RequestChecks.contentLength(cl);
      if (length < 0) {
        refuse(req, 400, "invalid content-length");
        return;
      }
      if (length > maxBodyBytes) {
        refuse(req, 413, "request body exceeds " + maxBodyBytes + " bytes");
        return;
      }
    }
    proxy.handle(req);
  }

  private void refuse(HttpServerRequest req, int status, String message) {
    long start = nanoClock.getAsLong();
    HttpServerResponse resp =
        req.response().setStatusCode(status).putHeader("content-type", "text/plain; charset=utf-8");
    boolean http1 = req.version() != HttpVersion.HTTP_2;
    if (http1) {
      resp.putHeader("connection", "close"); // the unread body would be taken for a request
    }
    resp.end(message + "\n")
        .onComplete(
            ar -> {
              observer.response("none", status, nanoClock.getAsLong() - start);
              if (http1) {
                req.connection().close();
              }
            });
  }
}
