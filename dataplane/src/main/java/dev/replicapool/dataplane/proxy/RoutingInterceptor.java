package dev.replicapool.dataplane.proxy;

import static dev.replicapool.dataplane.proxy.Exchange.Abort.BODY_TOO_LARGE;
import static dev.replicapool.dataplane.proxy.Exchange.Abort.CLIENT_GONE;
import static dev.replicapool.dataplane.proxy.Exchange.Abort.MALFORMED_BODY;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VertxException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.StreamResetException;
import io.vertx.core.net.HostAndPort;
import io.vertx.httpproxy.Body;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyRequest;
import io.vertx.httpproxy.ProxyResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The routing step of the proxy, as a vertx-http-proxy interceptor: finds the pool (by the
 * listener's dedicated pool, else by Host), answers locally when there is none (404) or it has no
 * routable member (503), sets the X-Forwarded headers, and decides about retries:
 *
 * <ul>
 *   <li>connect failures are retried by {@link MemberOriginProvider} before anything is sent;
 *   <li>a connection reset before any response (typically a kept-alive connection the member just
 *       closed) is retried on another member for bodyless idempotent requests, within the same
 *       {@code connectFailureRetries} budget;
 *   <li>a 502/503 answer is retried once on another member for bodyless idempotent requests when
 *       the pool has {@code retryIdempotentOn5xx}; if no other member can take it, the member's own
 *       answer is passed on.
 * </ul>
 *
 * <p>When the client's side fails instead (a body past the limit, a body that cannot be framed, the
 * client gone; see {@link Exchange.Abort}), the request is given up: answered on the spot (413,
 * 400) while the answer can still go out, its member request dropped (its connection closed if part
 * of the body went out, see {@link UpstreamRequest}), and nothing counted against the member. Once
 * the response is complete, what is left of the client's body is no longer forwarded.
 *
 * <p>Every try reports its outcome to the pool's router (latency, failures, passive ejection) and
 * to the {@link ProxyObserver}.
 */
final class RoutingInterceptor implements ProxyInterceptor {
  private static final Throwable RESPONSE_COMPLETE =
      new VertxException("the response is complete", true);
  private static final Set<HttpMethod> IDEMPOTENT =
      Set.of(
          HttpMethod.GET,
          HttpMethod.HEAD,
          HttpMethod.OPTIONS,
          HttpMethod.PUT,
          HttpMethod.DELETE,
          HttpMethod.TRACE);

  /** Hop-by-hop headers (RFC 9110 7.6.1) besides those a Connection header names. */
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private final Supplier<RoutingTable> table;
  private final String dedicatedPool;
  private final MemberOriginProvider origin;
  private final ProxyObserver observer;
  private final LongSupplier nanoClock;
  private final long maxBodyBytes;
  private final String viaName;
  private final String via11;
  private final String via2;
  private final String via10;

  /**
   * @param viaName this data plane's pseudonym in {@code Via} (RFC 9110 7.6.3), added to every
   *     forwarded request; a request that already carries it has looped back and gets 508
   */
  RoutingInterceptor(
      Supplier<RoutingTable> table,
      String dedicatedPool,
      MemberOriginProvider origin,
      ProxyObserver observer,
      LongSupplier nanoClock,
      long maxBodyBytes,
      String viaName) {
    this.table = table;
    this.dedicatedPool = dedicatedPool;
    this.origin = origin;
    this.observer = observer;
    this.nanoClock = nanoClock;
    this.maxBodyBytes = maxBodyBytes;
    this.viaName = viaName;
    // Via names the protocol the request was received with (RFC 9110 7.6.3).
    this.via11 = "1.1 " + viaName;
    this.via2 = "2 " + viaName;
    this.via10 = "1.0 " + viaName;
  }

  @Override
  public Future<ProxyResponse> handleProxyRequest(ProxyContext ctx) {
    ProxyRequest preq = ctx.request();
    HttpServerRequest sreq = preq.proxiedRequest();
    RoutingTable t = table.get();
    HostAndPort authority = sreq.authority();
    PoolRuntime pool =
        dedicatedPool != null
            ? t.pool(dedicatedPool)
            : t.poolForHost(authority == null ? null : authority.host());
    Exchange ex = new Exchange(pool, nanoClock.getAsLong(), IDEMPOTENT.contains(sreq.method()));
    ctx.set(Exchange.KEY, ex);
    if (pool == null) {
      String why =
          dedicatedPool != null
              ? "pool " + dedicatedPool + " is no longer served on this port"
              : authority == null
                  ? "no pool matches a request without Host"
                  : "no pool matches host " + RoutingTable.normalizeHost(authority.host());
      return local(ctx, ex, 404, why);
    }
    if (loopedBack(sreq)) {
      // A member address that leads back here (the proxy's own port, or a chain of data planes
      // that closes): without this each pass opens one more upstream request, until connections
      // or the upstream timeout run out.
      return local(
          ctx,
          ex,
          508,
          "request loop: this request already passed this data plane (Via "
              + viaName
              + "); a member of pool "
              + pool.name()
              + " leads back to the proxy");
    }
    try {
      prepareHeaders(preq, sreq, authority);
      preq.headers()
          .add(
              "via",
              switch (sreq.version()) {
                case HTTP_2 -> via2;
                case HTTP_1_0 -> via10;
                default -> via11;
              });
      ex.bodyless = bodyless(sreq);
      // Errors of the client's side come here: from the response until vertx-http-proxy sends the
      // request (it then passes them on as the cause of a reset, see UpstreamRequest), from the
      // request through the body.
      ex.clientFailure =
          failure -> abort(ex, sreq, clientGone(sreq, failure) ? CLIENT_GONE : MALFORMED_BODY);
      sreq.response().exceptionHandler(ex.clientFailure::accept);
      if (ex.bodyless) {
        preq.setBody(null);
        sreq.resume();
      } else {
        String cl = sreq.getHeader("content-length");
        if (cl == null && sreq.version() == HttpVersion.HTTP_2) {
          // HTTP/2 bodies need no length; to a member over HTTP/1.1 they go chunked.
          sreq.headers().set("transfer-encoding", "chunked");
        }
        ex.body =
            new InboundBody(
                sreq,
                cl == null ? maxBodyBytes : -1, // a Content-Length was checked by TrafficHandler
                new InboundBody.Owner() {
                  @Override
                  public void tooLarge() {
                    abort(ex, sreq, BODY_TOO_LARGE);
                  }

                  @Override
                  public void failed(Throwable cause) {
                    ex.clientFailure.accept(cause);
                  }
                });
        // TrafficHandler let only a valid Content-Length through; -1: a body without one.
        preq.setBody(Body.body(ex.body, RequestChecks.contentLength(cl)));
      }
      return forward(ctx, ex, ctx.sendRequest());
    } catch (RuntimeException e) {
      return local(ctx, ex, 502, "proxy error: " + e.getClass().getSimpleName());
    }
  }

  @Override
  public Future<Void> handleProxyResponse(ProxyContext ctx) {
    Exchange ex = ctx.get(Exchange.KEY, Exchange.class);
    ProxyResponse r = ctx.response();
    HttpServerResponse out = ctx.request().proxiedRequest().response();
    if (out.headWritten()) {
      // Answered on the spot already (see abort): this one is dropped.
      r.release();
      done(ex, out.getStatusCode());
      return Future.succeededFuture();
    }
    stripHopByHop(r.headers());
    int status = r.getStatusCode();
    return ctx.sendResponse().andThen(ar -> done(ex, status));
  }

  /** The response is sent (or failed): the exchange is over. */
  private void done(Exchange ex, int status) {
    if (ex == null) {
      return;
    }
    if (ex.body != null) {
      // What the client still sends is dropped, and a member request still waiting for the rest of
      // the body is given up rather than left waiting (its connection closed, see UpstreamRequest).
      ex.body.cancel(RESPONSE_COMPLETE);
    }
    if (ex.finish()) {
      long now = nanoClock.getAsLong();
      ex.endAttempt(now);
      observer.response(ex.poolName(), status, now - ex.startNanos);
    }
  }

  /**
   * Gives the request up because the client's side failed (the first reason counts): answers 413 or
   * 400 at once while nothing of a response went out (on HTTP/1.x with {@code Connection: close}),
   * stops forwarding the body, and drops the member request. The answer goes out now because for a
   * body it cannot frame Vert.x closes the connection right after reporting the error: closing it
   * first, here, flushes the answer.
   */
  private void abort(Exchange ex, HttpServerRequest sreq, Exchange.Abort why) {
    if (ex.aborted != null) {
      return;
    }
    ex.aborted = why;
    HttpServerResponse out = sreq.response();
    if (why != CLIENT_GONE && !out.headWritten() && !out.closed()) {
      boolean http1 = sreq.version() != HttpVersion.HTTP_2;
      out.setStatusCode(why.status)
          .putHeader("content-type", "text/plain; charset=utf-8")
          .putHeader("x-replicapool-pool", ex.poolName());
      if (http1) {
        out.putHeader("connection", "close");
      }
      out.end(abortMessage(why) + "\n");
      if (http1 && why == MALFORMED_BODY) {
        sreq.connection().close();
      }
    }
    if (ex.body != null) {
      ex.body.cancel(new ClientAbortedException(why));
    }
    if (ex.upstream != null) {
      ex.upstream.abort();
    }
  }

  /** The answer to a request given up on the client's side, instead of any member's. */
  private Future<ProxyResponse> answerAborted(ProxyContext ctx, Exchange ex) {
    releaseHeld(ex);
    return local(ctx, ex, ex.aborted.status, abortMessage(ex.aborted));
  }

  private static void releaseHeld(Exchange ex) {
    if (ex.held != null) {
      ex.held.release();
      ex.held = null;
    }
  }

  private String abortMessage(Exchange.Abort why) {
    return switch (why) {
      case BODY_TOO_LARGE -> "request body exceeds " + maxBodyBytes + " bytes";
      case MALFORMED_BODY -> "malformed request body";
      case CLIENT_GONE -> "client closed the request";
    };
  }

  /** Whether an error of the client's side means it went away, rather than sent a bad body. */
  static boolean clientGone(HttpServerRequest sreq, Throwable t) {
    if (sreq.version() == HttpVersion.HTTP_2) {
      return true; // a reset stream or a closed connection: HTTP/2 framing is not ours to judge
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof HttpClosedException
          || c instanceof StreamResetException
          || c instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private Future<ProxyResponse> forward(ProxyContext ctx, Exchange ex, Future<ProxyResponse> sent) {
    return sent.transform(
        ar -> {
          try {
            return ar.succeeded()
                ? onResponse(ctx, ex, ar.result())
                : onFailure(ctx, ex, ar.cause());
          } catch (RuntimeException e) {
            ex.endAttempt(nanoClock.getAsLong());
            return local(ctx, ex, 502, "proxy error: " + e.getClass().getSimpleName());
          }
        });
  }

  private Future<ProxyResponse> resend(ProxyContext ctx) {
    return origin.create(ctx).compose(creq -> ctx.request().send(creq));
  }

  private Future<ProxyResponse> onResponse(ProxyContext ctx, Exchange ex, ProxyResponse resp) {
    Endpoint e = ex.current;
    long nanos = nanoClock.getAsLong() - ex.attemptStartNanos;
    int status = resp.getStatusCode();
    if (e != null) {
      if (status >= 500) {
        ex.pool.router().failure(e, nanos);
      } else {
        ex.pool.router().success(e, nanos);
      }
      observer.attempt(ex.pool.name(), e, (status / 100) + "xx", nanos);
    }
    if (ex.aborted != null) {
      // The client's side failed before this answer could go out: it is dropped.
      ex.endAttempt(nanoClock.getAsLong());
      resp.release();
      return answerAborted(ctx, ex);
    }
    if ((status == 502 || status == 503)
        && ex.pool.retry().retryIdempotentOn5xx()
        && ex.idempotent
        && ex.bodyless
        && !ex.retried5xx) {
      ex.retried5xx = true;
      ex.endAttempt(nanoClock.getAsLong());
      ex.held = resp;
      observer.retry(ex.pool.name(), "status_" + status);
      return forward(ctx, ex, resend(ctx));
    }
    if (ex.held != null && ex.held != resp) {
      ex.held.release();
      ex.held = null;
    }
    return Future.succeededFuture(resp);
  }

  private Future<ProxyResponse> onFailure(ProxyContext ctx, Exchange ex, Throwable cause) {
    long now = nanoClock.getAsLong();
    if (ex.aborted != null) {
      // The client's side failed (the member request then failed because it was dropped): not the
      // member's doing, nor retried.
      Endpoint e = ex.current;
      long nanos = ex.endAttempt(now);
      if (e != null) {
        observer.attempt(ex.pool.name(), e, "aborted", nanos);
      }
      return answerAborted(ctx, ex);
    }
    if (cause instanceof NoMemberException nm) {
      if (ex.held != null) {
        return Future.succeededFuture(ex.held);
      }
      return local(ctx, ex, nm.status, nm.getMessage());
    }
    Endpoint e = ex.current;
    long nanos = ex.endAttempt(now);
    boolean timeout = isTimeout(cause);
    String member = e == null ? "?" : e.address();
    if (e != null) {
      ex.pool.router().failure(e, nanos);
      observer.attempt(ex.pool.name(), e, timeout ? "timeout" : "reset", nanos);
    }
    if (ex.held != null) {
      return Future.succeededFuture(ex.held);
    }
    if (timeout) {
      return local(
          ctx,
          ex,
          504,
          "member " + member + " of pool " + ex.pool.name() + " did not answer in time");
    }
    ex.failureStatus = 502;
    ex.failureMessage =
        "member " + member + " of pool " + ex.pool.name() + " closed the connection";
    if (ex.bodyless
        && ex.idempotent
        && ex.connectRetries < ex.pool.retry().connectFailureRetries()) {
      ex.connectRetries++;
      observer.retry(ex.pool.name(), "reset");
      return forward(ctx, ex, resend(ctx));
    }
    return local(ctx, ex, 502, ex.failureMessage);
  }

  private boolean loopedBack(HttpServerRequest sreq) {
    if (!sreq.headers().contains("via")) {
      return false;
    }
    for (String v : sreq.headers().getAll("via")) {
      if (v.contains(viaName)) {
        return true;
      }
    }
    return false;
  }

  private Future<ProxyResponse> local(ProxyContext ctx, Exchange ex, int status, String message) {
    ProxyRequest preq = ctx.request();
    preq.proxiedRequest().resume(); // drain what is left of the body
    ProxyResponse r =
        preq.response()
            .setStatusCode(status)
            .putHeader("content-type", "text/plain; charset=utf-8")
            .putHeader("x-replicapool-pool", ex.poolName())
            .setBody(Body.body(Buffer.buffer(message + "\n")));
    return Future.succeededFuture(r);
  }

  private static void prepareHeaders(
      ProxyRequest preq, HttpServerRequest sreq, HostAndPort authority) {
    MultiMap h = preq.headers();
    stripHopByHop(h);
    h.remove("expect"); // answered by the proxy (handle100ContinueAutomatically)
    String client = sreq.remoteAddress() == null ? null : sreq.remoteAddress().hostAddress();
    if (client != null) {
      String xff = h.get("x-forwarded-for");
      h.set("x-forwarded-for", xff == null || xff.isBlank() ? client : xff + ", " + client);
    }
    h.set("x-forwarded-proto", sreq.isSSL() ? "https" : "http");
    if (authority != null) {
      h.set("x-forwarded-host", authority.toString());
      preq.setAuthority(authority); // the member sees the client's Host, as with Envoy
    }
  }

  static void stripHopByHop(MultiMap headers) {
    List<String> named = new ArrayList<>();
    for (String value : headers.getAll("connection")) {
      for (String token : value.split(",")) {
        String t = token.strip().toLowerCase(Locale.ROOT);
        if (!t.isEmpty()) {
          named.add(t);
        }
      }
    }
    for (String n : named) {
      headers.remove(n);
    }
    for (String n : HOP_BY_HOP) {
      headers.remove(n);
    }
  }

  private static boolean bodyless(HttpServerRequest r) {
    if (r.getHeader("transfer-encoding") != null) {
      return false;
    }
    String cl = r.getHeader("content-length");
    if (cl != null) {
      return cl.strip().equals("0");
    }
    if (r.version() == HttpVersion.HTTP_2) {
      // HTTP/2 bodies need no length. GET and HEAD have no defined body: treat them as bodyless
      // (retryable) even before END_STREAM was seen; anything else may stream one.
      return r.isEnded() || r.method() == HttpMethod.GET || r.method() == HttpMethod.HEAD;
    }
    return true; // HTTP/1.x: no length and not chunked means no body
  }

  private static boolean isTimeout(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException) {
        return true;
      }
      String name = c.getClass().getSimpleName();
      if (name.contains("Timeout")) {
        return true;
      }
    }
    return false;
  }
}
