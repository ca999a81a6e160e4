package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Members that say how loaded they are (ORCA's {@code endpoint-load-metrics}) through an Adaptive
 * pool: a member that reports itself near capacity gets almost none of the requests, though its
 * latency is the same as the others'; so does one whose utilization is the others' but which says
 * it holds many more requests (every client's, {@code named_metrics.in_flight}), which this data
 * plane's own in-flight count cannot see. The report never reaches the client. Over HTTP/1.1 to an
 * HTTP/1.1 pool (the HTTP/1 path) and over HTTP/2 to an h2c pool (the HTTP/2 path).
 */
class LoadReportsIT extends DataPlaneTestBase {
  static final String HOST = "load.shop.example";
  static final int REQUESTS = 600;
  static final int IN_FLIGHT = 8;

  static final String SATURATED = "TEXT application_utilization=0.97, named_metrics.queue=40";
  static final String HOLDS_2 = "TEXT application_utilization=0.6, named_metrics.in_flight=2";
  static final String HOLDS_40 = "TEXT application_utilization=0.6, named_metrics.in_flight=40";

  @ParameterizedTest(name = "{0} client, {1} pool, the busy member reports {4}")
  @CsvSource({
    "HTTP_1_1, http, TEXT cpu_utilization=0.2, 'JSON {\"application_utilization\": 0.25}', SATURATED",
    "HTTP_2, kubernetes.io/h2c, TEXT cpu_utilization=0.2, TEXT cpu_utilization=0.25, SATURATED",
    "HTTP_1_1, http, , , ",
    "HTTP_1_1, http, HOLDS_2, HOLDS_2, HOLDS_40",
    "HTTP_2, kubernetes.io/h2c, HOLDS_2, HOLDS_2, HOLDS_40",
  })
  void aMemberReportingItselfBusyGetsAlmostNoneOfAnAdaptivePool(
      HttpVersion client, String appProtocol, String aReport, String bReport, String busyReport)
      throws Exception {
    TestMember a = member("a");
    TestMember b = member("b");
    TestMember busy = member("busy");
    a.loadReport = report(aReport);
    b.loadReport = report(bReport);
    busy.loadReport = report(busyReport);
    boolean reports = busyReport != null;
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/load")
            .hosts(HOST)
            .policy(RoutingPolicy.Adaptive)
            .appProtocol(appProtocol)
            .members(a.snapshot(1), b.snapshot(1), busy.snapshot(1)));
    HttpClient http = client(client);
    OnEventLoop onLoop = new OnEventLoop(vertx);
    Map<String, Integer> counts = new HashMap<>();
    int leaked = 0;
    // Eight at a time: the members' in-flight counts then spread the load as Adaptive does under
    // concurrency, so without reports the busy member gets its share.
    for (int batch = 0; batch < REQUESTS / IN_FLIGHT; batch++) {
      List<Future<HttpClientResponse>> answers = new ArrayList<>();
      for (int i = 0; i < IN_FLIGHT; i++) {
        answers.add(get(http, onLoop, "/track/" + batch + "/" + i));
      }
      for (Future<HttpClientResponse> f : answers) {
        HttpClientResponse r = f.await(10, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(client);
        counts.merge(r.getHeader("x-replica"), 1, Integer::sum);
        if (r.getHeader("endpoint-load-metrics") != null) {
          leaked++;
        }
      }
    }
    http.close().await();
    System.out.printf(
        "FIGURE load reports (%s client, %s pool, the busy member reports %s): %s%n",
        client, appProtocol, busy.loadReport, counts);
    assertThat(leaked).as("answers that carried the member's load report to the client").isZero();
    int busyShare = counts.getOrDefault("busy", 0);
    if (reports) {
      // The first answers of each member come before any report: a few requests at most.
      assertThat(busyShare).isLessThan(REQUESTS / 20);
    } else {
      assertThat(busyShare)
          .as("without reports it is one member of three")
          .isGreaterThan(REQUESTS / 5);
    }
  }

  @ParameterizedTest(name = "{0} client, {1} pool")
  @CsvSource({"HTTP_1_1, http", "HTTP_2, kubernetes.io/h2c"})
  void aPoolThatForwardsLoadReportsPassesThemOnAndStillWeighsThem(
      HttpVersion client, String appProtocol) throws Exception {
    TestMember a = member("a");
    TestMember busy = member("busy");
    a.loadReport = "TEXT cpu_utilization=0.2";
    busy.loadReport = SATURATED;
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/load")
            .hosts(HOST)
            .policy(RoutingPolicy.Adaptive)
            .appProtocol(appProtocol)
            .forwardLoadReports()
            .members(a.snapshot(1), busy.snapshot(1)));
    HttpClient http = client(client);
    OnEventLoop onLoop = new OnEventLoop(vertx);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 100; i++) {
      HttpClientResponse r = get(http, onLoop, "/track/" + i).await(10, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      String replica = r.getHeader("x-replica");
      counts.merge(replica, 1, Integer::sum);
      assertThat(r.getHeader("endpoint-load-metrics"))
          .as("the report of the member that answered, as it sent it")
          .isEqualTo(replica.equals("busy") ? SATURATED : a.loadReport);
    }
    http.close().await();
    assertThat(counts.getOrDefault("busy", 0)).as("still weighed").isLessThan(10);
  }

  private HttpClient client(HttpVersion version) {
    return vertx.createHttpClient(
        new HttpClientOptions().setProtocolVersion(version).setHttp2ClearTextUpgrade(false));
  }

  /** A GET of {@code uri} to the pool through the data plane, its body read. */
  private Future<HttpClientResponse> get(HttpClient http, OnEventLoop onLoop, String uri) {
    RequestOptions get =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(HOST)
            .setPort(80)
            .setURI(uri);
    return onLoop.call(
        () ->
            http.request(get)
                .compose(req -> req.send())
                .compose(resp -> resp.body().map(body -> resp)));
  }

  /** A report by its name in this class, else as written; null: no report. */
  private static String report(String r) {
    if (r == null) {
      return null;
    }
    return switch (r) {
      case "SATURATED" -> SATURATED;
      case "HOLDS_2" -> HOLDS_2;
      case "HOLDS_40" -> HOLDS_40;
      default -> r;
    };
  }
}
