package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.HostAndPort;
import io.vertx.httpproxy.Body;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyRequest;
import io.vertx.httpproxy.ProxyResponse;
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
 * <p>Every try reports its outcome to the pool's router (latency, failures, passive ejection) and
 * to the {@link ProxyObserver}.
 */
final class RoutingInterceptor implements ProxyInterceptor {
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

  RoutingInterceptor(
      Supplier<RoutingTable> table,
      String dedicatedPool,
      MemberOriginProvider origin,
      ProxyObserver observer,
      LongSupplier nanoClock,
      long maxBodyBytes) {
    this.table = table;
    this.dedicatedPool = dedicatedPool;
    this.origin = origin;
    this.observer = observer;
    this.nanoClock = nanoClock;
    this.maxBodyBytes = maxBodyBytes;
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
    try {
      prepareHeaders(preq, sreq, authority);
      ex.bodyless = bodyless(sreq);
      if (ex.bodyless) {
        preq.setBody(null);
        sreq.resume();
      } else if (sreq.getHeader("content-length") == null) {
        if (sreq.version() == HttpVersion.HTTP_2) {
          // HTTP/2 bodies need no length; to a member over HTTP/1.1 they go chunked.
          sreq.headers().set("transfer-encoding", "chunked");
        }
        preq.setBody(
            Body.body(new LimitedReadStream(sreq, maxBodyBytes, () -> ex.bodyTooLarge = true), -1));
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
    stripHopByHop(r.headers());
    HttpServerRequest sreq = ctx.request().proxiedRequest();
    if (ex != null && ex.bodyTooLarge && sreq.version() != HttpVersion.HTTP_2) {
      sreq.response().putHeader("connection", "close");
    }
    int status = r.getStatusCode();
    return ctx.sendResponse()
        .andThen(
            ar -> {
              if (ex != null && ex.finish()) {
                long now = nanoClock.getAsLong();
                ex.endAttempt(now);
                observer.response(ex.poolName(), status, now - ex.startNanos);
              }
            });
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
    if (cause instanceof NoMemberException nm) {
      if (ex.held != null) {
        return Future.succeededFuture(ex.held);
      }
      return local(ctx, ex, nm.status, nm.getMessage());
    }
    Endpoint e = ex.current;
    long nanos = ex.endAttempt(now);
    if (ex.bodyTooLarge) {
      return local(ctx, ex, 413, "request body exceeds " + maxBodyBytes + " bytes");
    }
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

  private Future<ProxyResponse> local(ProxyContext ctx, Exchange ex, int status, String message) {
    ProxyRequest preq = ctx.request();
    preq.proxiedRequest().resume(); // drain what is left of the body
    if (status == 413) {
      ex.bodyTooLarge = true;
    }
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
