package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.OriginRequestProvider;
import io.vertx.httpproxy.ProxyContext;
import java.util.function.LongSupplier;

/**
 * Picks the member for a request with the pool's balancer and opens the request to it. Getting a
 * connection is the step that can fail without the member having seen anything (refused, connect
 * timeout), so such failures are retried here on another member, up to the pool's {@code
 * connectFailureRetries}, before anything of the request is sent. The request is wrapped in an
 * {@link UpstreamRequest}; none is opened once the client's side has failed.
 */
final class MemberOriginProvider implements OriginRequestProvider {
  private final ProxySettings settings;
  private final ProxyObserver observer;
  private final LongSupplier nanoClock;

  MemberOriginProvider(ProxySettings settings, ProxyObserver observer, LongSupplier nanoClock) {
    this.settings = settings;
    this.observer = observer;
    this.nanoClock = nanoClock;
  }

  @Override
  public Future<HttpClientRequest> create(ProxyContext ctx) {
    Exchange ex = ctx.get(Exchange.KEY, Exchange.class);
    if (ex.aborted != null) {
      return Future.failedFuture(new ClientAbortedException(ex.aborted));
    }
    Endpoint e = ex.pool.router().pick(ex.tried);
    if (e == null) {
      if (ex.tried.isEmpty()) {
        return Future.failedFuture(
            new NoMemberException(503, "no routable member in pool " + ex.pool.name()));
      }
      return Future.failedFuture(new NoMemberException(ex.failureStatus, ex.failureMessage));
    }
    ex.begin(e, nanoClock.getAsLong());
    RequestOptions options =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(e.port(), e.host()))
            .setConnectTimeout(settings.upstreamConnectTimeoutMillis())
            .setIdleTimeout(settings.upstreamIdleTimeoutMillis());
    return ctx.client()
        .request(options)
        .map(
            req -> {
              // Failures also fail the response future, which the interceptor handles.
              req.exceptionHandler(t -> {});
              UpstreamRequest upstream = new UpstreamRequest(req, ex.clientFailure);
              if (ex.aborted != null) {
                // The client's side failed while the connection was being obtained: nothing was
                // written, the connection goes back to the pool as it was.
                upstream.abort();
                throw new ClientAbortedException(ex.aborted);
              }
              ex.upstream = upstream;
              return (HttpClientRequest) upstream;
            })
        .recover(
            failure -> {
              long nanos = ex.endAttempt(nanoClock.getAsLong());
              if (ex.aborted != null) {
                return Future.failedFuture(new ClientAbortedException(ex.aborted));
              }
              ex.pool.router().failure(e, nanos);
              observer.attempt(ex.pool.name(), e, "connect_failure", nanos);
              ex.failureStatus = 502;
              ex.failureMessage =
                  "member " + e.address() + " of pool " + ex.pool.name() + " is unreachable";
              if (ex.connectRetries < ex.pool.retry().connectFailureRetries()) {
                ex.connectRetries++;
                observer.retry(ex.pool.name(), "connect_failure");
                return create(ctx);
              }
              return Future.failedFuture(new NoMemberException(502, ex.failureMessage));
            });
  }
}
