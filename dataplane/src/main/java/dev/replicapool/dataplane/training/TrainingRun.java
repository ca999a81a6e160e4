package dev.replicapool.dataplane.training;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.DataPlaneArgs;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One run of the data plane's request paths with nothing outside the process, for the JVM to note
 * which classes they load: the image build runs it under {@code -XX:ArchiveClassesAtExit}, and the
 * data plane then starts from that archive (AppCDS) without parsing and verifying those classes
 * again, which makes it route its first request about twice as soon.
 *
 * <p>It starts what the data plane meets in a cluster, on loopback ports the system picks: a
 * control plane publishing two pools (members speaking HTTP/1.1, and h2c), one member answering
 * both, and the data plane itself, started from its command line as the image starts it. Then
 * HTTP/1.1 and HTTP/2 clients send GETs, POSTs and gRPC-framed calls through it to both pools, the
 * admin port is read as Kubernetes and Prometheus read it, and everything stops. Any answer that is
 * not the member's makes it exit 1, so an image never ships an archive of a broken path.
 *
 * <p>The same set-up and one pass of the same traffic begin a running data plane's warm-up ({@link
 * WarmUp}).
 */
public final class TrainingRun {
  static final int REQUESTS = 200;
  static final long WAIT_SECONDS = 30;
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

  /** The whole run once; returns how many requests went through the data plane. */
  static int run(Vertx vertx) throws Exception {
    return withDataPlane(vertx, "training", (dp, cp) -> onLoop(vertx, () -> pass(vertx, dp)));
  }

  /**
   * What is done with the run's data plane once it serves both pools (more may be published on
   * {@code cp}): returns the requests routed.
   */
  interface Traffic {
    int through(DataPlane dp, ControlPlaneServer cp) throws Exception;
  }

  /**
   * Starts a control plane, a member and a data plane named {@code node} on loopback ports in
   * {@code vertx}, publishes the two pools, runs {@code traffic} through it, and stops them all.
   */
  static int withDataPlane(Vertx vertx, String node, Traffic traffic) throws Exception {
    String token = UUID.randomUUID().toString();
    Path tokenFile = Files.createTempFile("replicapool-training", ".token");
    Files.writeString(tokenFile, token);
    ControlPlaneServer cp =
        new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, token));
    HttpServer member = null;
    DataPlane dp = null;
    try {
      int cpPort = cp.start().await(WAIT_SECONDS, TimeUnit.SECONDS);
      member = member(vertx).listen(0, "127.0.0.1").await(WAIT_SECONDS, TimeUnit.SECONDS);
      DataPlane.Config config =
          DataPlaneArgs.parse(
              new String[] {
                "--control-plane=127.0.0.1:" + cpPort,
                "--token-file=" + tokenFile,
                "--node=" + node,
                "--listen=127.0.0.1:0",
                "--tls-listen=off",
                "--admin-port=127.0.0.1:0",
                "--drain-seconds=0",
                "--access-log=/dev/null"
              },
              Map.of());
      dp = DataPlane.start(vertx, config).await(WAIT_SECONDS, TimeUnit.SECONDS);
      publish(cp, pool("training/h1", "h1.training", "http", member.actualPort()));
      publish(cp, pool("training/h2", "h2.training", "kubernetes.io/h2c", member.actualPort()));
      return traffic.through(dp, cp);
    } finally {
      if (dp != null) {
        dp.stop().await(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      if (member != null) {
        member.close().await(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      cp.stop().await(WAIT_SECONDS, TimeUnit.SECONDS);
      Files.deleteIfExists(tokenFile);
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

  /**
   * A pool of members on {@code memberPorts} as the operator sends one a user applied with only its
   * members, host and protocol: the CRD's defaults filled in (RoundRobin, the retry budget, outlier
   * detection, the Adaptive parameters, no timeouts), so that the requests take the paths a default
   * pool's take.
   */
  static PoolSnapshot pool(String name, String host, String appProtocol, int... memberPorts) {
    List<MemberSnapshot> members = new ArrayList<>();
    for (int port : memberPorts) {
      members.add(new MemberSnapshot("127.0.0.1", port, 1.0, MemberState.Healthy));
    }
    return PoolSnapshotBuilder.builder()
        .pool(name)
        .policy(RoutingPolicy.RoundRobin)
        .adaptive(new AdaptiveRouting())
        .outlierDetection(new OutlierDetection())
        .retry(new Retry())
        .timeouts(new Timeouts())
        .maxRequestsPerMember(0)
        .panicThresholdPercent(0)
        .hosts(List.of(host))
        .appProtocol(appProtocol)
        .members(members)
        .build();
  }

  /** Publishes {@code s} and waits until the data plane has applied it. */
  static void publish(ControlPlaneServer cp, PoolSnapshot s) throws InterruptedException {
    PoolSnapshot versioned =
        PoolSnapshotBuilder.builder(s).version(cp.nextVersion(s.pool())).build();
    if (!cp.publish(versioned)) {
      throw new IllegalStateException("pool " + s.pool() + " was not published");
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!cp.syncState(s.pool()).synced()) {
      if (!cp.syncState(s.pool()).nacks().isEmpty()) {
        throw new IllegalStateException(s.pool() + " refused: " + cp.syncState(s.pool()).nacks());
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException(s.pool() + " not applied in " + WAIT_SECONDS + " s");
      }
      Thread.sleep(10); // a one-off wait in a build step; nothing else to await on here
    }
  }

  /**
   * {@code traffic}, started on one event-loop context, awaited: Vert.x's client, called from a
   * thread outside Vert.x, now and then never completes a request.
   */
  static int onLoop(Vertx vertx, Supplier<Future<Integer>> traffic) throws Exception {
    Context loop = vertx.getOrCreateContext();
    Promise<Integer> done = Promise.promise();
    loop.runOnContext(v -> traffic.get().onComplete(done));
    return done.future().await(WAIT_SECONDS * 4, TimeUnit.SECONDS);
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
