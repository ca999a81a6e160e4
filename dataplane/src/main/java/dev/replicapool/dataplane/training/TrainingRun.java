package dev.replicapool.dataplane.training;

import static dev.replicapool.dataplane.training.LoopbackDataPlane.WAIT_SECONDS;
import static dev.replicapool.dataplane.training.LoopbackDataPlane.onLoop;
import static dev.replicapool.dataplane.training.LoopbackDataPlane.pool;
import static dev.replicapool.dataplane.training.LoopbackDataPlane.publish;

import dev.replicapool.dataplane.DataPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One run of the data plane's request paths with nothing outside the process, for the JVM to note
 * which classes they load: the image build runs it under {@code -XX:ArchiveClassesAtExit}, and the
 * data plane then starts from that archive (AppCDS) without parsing and verifying those classes
 * again, which makes it route its first request about twice as soon.
 *
 * <p>It starts what the data plane meets in a cluster, on loopback ports the system picks ({@link
 * LoopbackDataPlane}): a control plane publishing two pools (members speaking HTTP/1.1, and h2c),
 * one member answering both, and the data plane itself, started from its command line as the image
 * starts it. Then HTTP/1.1 and HTTP/2 clients send GETs, POSTs and gRPC-framed calls through it to
 * both pools, the admin port is read as Kubernetes and Prometheus read it, and everything stops.
 * Any answer that is not the member's makes it exit 1, so an image never ships an archive of a
 * broken path.
 *
 * <p>A running data plane's warm-up ({@link WarmUp}) uses the same set-up with members and traffic
 * of its own.
 */
public final class TrainingRun {
  static final int REQUESTS = 200;
  static final String GRPC = "application/grpc";

  private TrainingRun() {}

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    int code = 0;
    try {
      int routed = run(vertx);
      System.out.println("training run: " + routed + " requests routed");
    } catch (Exception e) {
      System.err.println("training run failed: " + e);
      code = 1;
    } finally {
      vertx.close().await(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    System.exit(code); // the archive is written as the JVM exits
  }

  /**
   * The whole run once: a member answering both pools (HTTP/1.1 and h2c), the pools published to a
   * {@link LoopbackDataPlane}, {@link #pass} through it. Returns how many requests it routed.
   */
  static int run(Vertx vertx) throws Exception {
    HttpServer member = member(vertx).listen(0, "127.0.0.1").await(WAIT_SECONDS, TimeUnit.SECONDS);
    try {
      int port = member.actualPort();
      return LoopbackDataPlane.with(
          vertx,
          "training",
          (dp, cp) -> {
            publish(cp, pool("training/h1", "h1.training", "http", port));
            publish(cp, pool("training/h2", "h2.training", "kubernetes.io/h2c", port));
            return onLoop(vertx, () -> pass(vertx, dp));
          });
    } finally {
      member.close().await(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** A member that answers every request 200 with its body, and a gRPC call with its trailers. */
  static HttpServer member(Vertx vertx) {
    return vertx
        .createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
        .requestHandler(
            req ->
                req.body()
                    .onSuccess(
                        body -> {
                          var resp = req.response().putHeader("x-replica", "training");
                          if (GRPC.equals(req.getHeader("content-type"))) {
                            resp.putHeader("content-type", GRPC).putTrailer("grpc-status", "0");
                          }
                          resp.end(body);
                        }));
  }

  /** Each client protocol to each pool, then the admin port; returns the requests routed. */
  static Future<Integer> pass(Vertx vertx, DataPlane dp) {
    HttpClient h1 = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
    HttpClient h2 =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false));
    int port = dp.trafficPort();
    Future<Integer> routed = Future.succeededFuture(0);
    for (String host : List.of("h1.training", "h2.training")) {
      for (HttpClient c : List.of(h1, h2)) {
        routed = then(routed, () -> send(c, port, host, HttpMethod.GET, null, null));
        routed = then(routed, () -> send(c, port, host, HttpMethod.POST, "text/plain", "training"));
      }
    }
    routed = then(routed, () -> send(h2, port, "h2.training", HttpMethod.POST, GRPC, ""));
    for (String path : List.of("/readyz", "/healthz", "/metrics")) {
      routed = then(routed, () -> admin(h1, dp.adminPort(), path).map(0));
    }
    return routed.eventually(() -> Future.all(h1.close(), h2.close()));
  }

  /** After {@code sofar}, {@code next}; the counts added. */
  private static Future<Integer> then(Future<Integer> sofar, Supplier<Future<Integer>> next) {
    return sofar.compose(n -> next.get().map(m -> n + m));
  }

  /** {@link #REQUESTS} requests, 8 at a time; each must be the member's answer. */
  static Future<Integer> send(
      HttpClient c, int port, String host, HttpMethod method, String contentType, String body) {
    RequestOptions o = request(port, host, method, contentType);
    Future<Integer> sent = Future.succeededFuture(0);
    for (int i = 0; i < REQUESTS; i += 8) {
      sent =
          then(
              sent,
              () -> {
                List<Future<Void>> batch = new ArrayList<>();
                for (int j = 0; j < 8; j++) {
                  batch.add(one(c, o, body));
                }
                return Future.all(batch).map(8);
              });
    }
    return sent;
  }

  /** A request to {@code host} of the pools, through the data plane's {@code port}. */
  static RequestOptions request(int port, String host, HttpMethod method, String contentType) {
    RequestOptions o =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(port, "127.0.0.1"))
            .setHost(host)
            .setPort(80)
            .setMethod(method)
            .setURI("/training")
            .setTimeout(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    if (contentType != null) {
      o.putHeader("content-type", contentType);
    }
    return o;
  }

  /** One request; fails unless the member answered it. */
  static Future<Void> one(HttpClient c, RequestOptions o, String body) {
    return c.request(o)
        .compose(r -> body == null ? r.send() : r.send(Buffer.buffer(body)))
        .compose(
            r ->
                r.body()
                    .compose(
                        b ->
                            r.statusCode() == 200 && "training".equals(r.getHeader("x-replica"))
                                ? Future.<Void>succeededFuture()
                                : Future.failedFuture(
                                    o.getMethod()
                                        + " "
                                        + o.getHost()
                                        + " over "
                                        + r.version()
                                        + ": "
                                        + r.statusCode())));
  }

  /** The admin port's {@code path}, as Kubernetes or Prometheus reads it: 200. */
  static Future<Void> admin(HttpClient c, int port, String path) {
    return c.request(HttpMethod.GET, port, "127.0.0.1", path)
        .compose(r -> r.send())
        .compose(
            r ->
                r.body()
                    .compose(
                        b ->
                            r.statusCode() == 200
                                ? Future.<Void>succeededFuture()
                                : Future.failedFuture("admin " + path + ": " + r.statusCode())));
  }
}
