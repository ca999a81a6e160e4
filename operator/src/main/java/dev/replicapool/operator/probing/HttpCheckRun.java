package dev.replicapool.operator.probing;

import dev.replicapool.operator.probing.HealthChecker.ConnectionEvents;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import java.util.function.Consumer;

/**
 * One check in flight on a pooled HTTP client (the HTTP and gRPC checkers): the request once open,
 * and whether the prober aborted it meanwhile, which resets that request.
 */
final class HttpCheckRun implements HealthChecker.Running {
  private final ConnectionEvents events;
  private HttpClientRequest request;
  private boolean aborted;

  private HttpCheckRun(ConnectionEvents events) {
    this.events = events;
  }

  /**
   * Opens a request and hands it to {@code send} unless the check was aborted by then; {@code done}
   * gets the failure when no request could be had or the abort came first.
   *
   * @param authority the Host or :authority to send, null for the default
   */
  static HttpCheckRun start(
      HttpClient client,
      RequestOptions options,
      HostAndPort authority,
      ConnectionEvents events,
      Handler<CheckOutcome> done,
      Consumer<HttpClientRequest> send) {
    HttpCheckRun run = new HttpCheckRun(events);
    client
        .request(options)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                done.handle(CheckOutcome.noResponse(ar.cause()));
              } else {
                run.opened(ar.result(), authority, done, send);
              }
            });
    return run;
  }

  private void opened(
      HttpClientRequest req,
      HostAndPort authority,
      Handler<CheckOutcome> done,
      Consumer<HttpClientRequest> send) {
    // Before any reset: without a handler Vert.x logs every reset at ERROR.
    req.exceptionHandler(e -> {});
    if (aborted) {
      events.resetting(req);
      req.reset();
      done.handle(CheckOutcome.failed(-1, ProbeCause.OTHER, "aborted", false));
      return;
    }
    request = req;
    events.sending(req);
    if (authority != null) {
      req.authority(authority);
    }
    send.accept(req);
  }

  @Override
  public void abort() {
    aborted = true;
    if (request != null) {
      events.resetting(request);
      request.reset();
    }
  }
}
