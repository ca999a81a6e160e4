package dev.replicapool.replica;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Random;

/**
 * Answers the requests of one event loop. Everything here runs on that loop: delays are Vert.x
 * timers, requests that arrive during a freeze wait in a queue that one timer releases, and nothing
 * blocks.
 */
final class ReplicaHandler implements Handler<HttpServerRequest> {
  static final CharSequence X_REPLICA = HttpHeaders.createOptimized("x-replica");
  private static final CharSequence APPLICATION_JSON =
      HttpHeaders.createOptimized("application/json");
  private static final byte[] HEALTH_OK = "{\"status\":\"ok\"}".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEALTH_SICK =
      "{\"status\":\"unhealthy\"}".getBytes(StandardCharsets.US_ASCII);
  private static final String ADMIN_HELP =
      "POST /admin/slow?ms=N, /admin/errors?rate=R, /admin/unhealthy, /admin/healthy,"
          + " /admin/freeze?ms=N, /admin/reset, /admin/capacity?workers=N&serviceMs=M&busy=B&report=true|false; GET /admin/state";

  static final CharSequence LOAD_METRICS = HttpHeaders.createOptimized("endpoint-load-metrics");

  private final Vertx vertx;
  private final Context context;
  private final String name;
  private final String nameJson;
  private final CharSequence nameHeader;
  private final byte[] errorBody;
  private final ReplicaState state;
  private final Random random;
  private final ArrayDeque<HttpServerRequest> held = new ArrayDeque<>();
  private long freezeTimer = -1;

  ReplicaHandler(Vertx vertx, Context context, String name, ReplicaState state, Random random) {
    this.vertx = vertx;
    this.context = context;
    this.name = name;
    this.nameJson = Json.string(name);
    this.nameHeader = HttpHeaders.createOptimized(name);
    this.errorBody =
        ("{\"replica\":" + nameJson + ",\"error\":\"injected failure\"}")
            .getBytes(StandardCharsets.UTF_8);
    this.state = state;
    this.random = random;
    state.onFreezeChange(() -> context.runOnContext(v -> freezeChanged()));
  }

  @Override
  public void handle(HttpServerRequest request) {
    String path = request.path();
    if (path.equals("/admin") || path.startsWith("/admin/")) {
      admin(request, path);
    } else if (state.isFrozen()) {
      held.add(request);
      armFreezeTimer();
    } else {
      delay(request);
    }
  }

  private void delay(HttpServerRequest request) {
    long slow = state.slowMillis();
    if (slow > 0) {
      vertx.setTimer(slow, id -> serve(request));
    } else {
      serve(request);
    }
  }

  /** With a capacity, waits for a worker and holds it serviceMs; health answers take none. */
  private void serve(HttpServerRequest request) {
    Capacity capacity = state.capacity();
    String path = request.path();
    if (capacity == null || path.equals("/healthz") || path.equals("/health")) {
      answer(request);
      return;
    }
    capacity.acquire(() -> context.runOnContext(v -> hold(request, capacity)));
  }

  private void hold(HttpServerRequest request, Capacity capacity) {
    HttpServerResponse response = request.response();
    if (response.closed() || response.ended()) {
      capacity.release(); // the client gave up while it waited
      return;
    }
    long service = capacity.serviceMillis();
    if (service > 0) {
      vertx.setTimer(
          service,
          id -> {
            capacity.release();
            answer(request);
          });
    } else {
      capacity.release();
      answer(request);
    }
  }

  private void answer(HttpServerRequest request) {
    HttpServerResponse response = request.response();
    if (response.closed() || response.ended()) {
      return; // the client gave up while we were slow or frozen
    }
    double rate = state.errorRate();
    boolean error = rate > 0 && random.nextDouble() < rate;
    state.countServed(error);
    if (error) {
      send(response, 500, errorBody);
      return;
    }
    String path = request.path();
    if (path.equals("/healthz") || path.equals("/health")) {
      boolean healthy = state.healthy();
      send(response, healthy ? 200 : 503, healthy ? HEALTH_OK : HEALTH_SICK);
      return;
    }
    String id = path.startsWith("/track/") ? path.substring("/track/".length()) : path;
    String body =
        "{\"replica\":" + nameJson + ",\"id\":" + Json.string(id) + ",\"status\":\"in transit\"}";
    send(response, 200, body.getBytes(StandardCharsets.UTF_8));
  }

  private void send(HttpServerResponse response, int status, byte[] body) {
    Capacity capacity = state.capacity();
    if (capacity != null && capacity.reports()) {
      response.putHeader(LOAD_METRICS, capacity.orcaText());
    }
    response
        .setStatusCode(status)
        .putHeader(X_REPLICA, nameHeader)
        .putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON)
        .end(Buffer.buffer(body));
  }

  private void send(HttpServerResponse response, int status, String body) {
    send(response, status, body.getBytes(StandardCharsets.UTF_8));
  }

  // ---- freeze: one timer per event loop releases every request that arrived meanwhile ----

  private void armFreezeTimer() {
    if (freezeTimer != -1) {
      return;
    }
    long left = state.frozenForMillis();
    if (left <= 0) {
      release();
      return;
    }
    freezeTimer =
        vertx.setTimer(
            left,
            id -> {
              freezeTimer = -1;
              freezeChanged();
            });
  }

  /** A freeze started, ended, was extended or shortened, or its timer fired. */
  private void freezeChanged() {
    if (freezeTimer != -1) {
      vertx.cancelTimer(freezeTimer);
      freezeTimer = -1;
    }
    if (held.isEmpty()) {
      return;
    }
    if (state.isFrozen()) {
      armFreezeTimer();
    } else {
      release();
    }
  }

  private void release() {
    HttpServerRequest request;
    while ((request = held.poll()) != null) {
      delay(request);
    }
  }

  // ---- /admin ----

  private void admin(HttpServerRequest request, String path) {
    HttpServerResponse response = request.response();
    String op = path.length() > "/admin/".length() ? path.substring("/admin/".length()) : "";
    boolean known =
        switch (op) {
          case "state", "slow", "errors", "unhealthy", "healthy", "freeze", "reset", "capacity" ->
              true;
          default -> false;
        };
    if (!known) {
      send(
          response,
          404,
          "{\"error\":" + Json.string("no admin endpoint " + path + "; try " + ADMIN_HELP) + "}");
      return;
    }
    HttpMethod expected = op.equals("state") ? HttpMethod.GET : HttpMethod.POST;
    if (!request.method().equals(expected)) {
      response.putHeader(HttpHeaders.ALLOW, expected.name());
      send(
          response,
          405,
          "{\"error\":" + Json.string(path + " takes " + expected.name() + " only") + "}");
      return;
    }
    try {
      switch (op) {
        case "slow" -> state.slow(longParam(request, "ms"));
        case "errors" -> state.errors(rateParam(request));
        case "unhealthy" -> state.healthy(false);
        case "healthy" -> state.healthy(true);
        case "freeze" -> state.freeze(longParam(request, "ms"));
        case "reset" -> state.reset();
        case "capacity" -> {
          Capacity now = state.capacity();
          long workers =
              request.getParam("workers") == null && now != null
                  ? now.workers()
                  : longParam(request, "workers");
          long serviceMs =
              request.getParam("serviceMs") == null
                  ? (now == null ? 0 : now.serviceMillis())
                  : longParam(request, "serviceMs");
          long busy =
              request.getParam("busy") == null
                  ? (now == null ? 0 : now.batchJob())
                  : longParam(request, "busy");
          if (workers < 1 || workers > 100_000) {
            throw new IllegalArgumentException("workers must be 1 to 100000, got " + workers);
          }
          if (busy < 0 || busy >= workers) {
            throw new IllegalArgumentException(
                "busy must be 0 to " + (workers - 1) + " (fewer than workers), got " + busy);
          }
          if (now != null && busy < now.batchJob()) {
            now.batchJob((int) busy); // first, so that fewer workers stay above it
          }
          state.capacity((int) workers, serviceMs);
          Capacity c = state.capacity();
          c.batchJob((int) busy);
          String report = request.getParam("report");
          if (report != null) {
            if (!report.equals("true") && !report.equals("false")) {
              throw new IllegalArgumentException(
                  "report must be true or false, got '" + report + "'");
            }
            c.reports(report.equals("true"));
          }
          send(
              response,
              200,
              String.format(
                  java.util.Locale.ROOT,
                  "{\"replica\":%s,\"workers\":%d,\"serviceMs\":%d,\"busy\":%d,\"queued\":%d,"
                      + "\"utilization\":%s,\"reports\":%b}",
                  nameJson,
                  c.workers(),
                  c.serviceMillis(),
                  c.batchJob(),
                  c.queued(),
                  Double.toString(c.utilization()),
                  c.reports()));
          return;
        }
        default -> {} // state
      }
    } catch (IllegalArgumentException e) {
      send(response, 400, "{\"error\":" + Json.string(e.getMessage()) + "}");
      return;
    }
    send(response, 200, state.toJson(name));
  }

  private static long longParam(HttpServerRequest request, String param) {
    String value = request.getParam(param);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(request.path() + " needs ?" + param + "=N");
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(param + " must be a whole number, got '" + value + "'");
    }
  }

  private static double rateParam(HttpServerRequest request) {
    String value = request.getParam("rate");
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(request.path() + " needs ?rate=R with R from 0 to 1");
    }
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("rate must be a number from 0 to 1, got '" + value + "'");
    }
  }
}
