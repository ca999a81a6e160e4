package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 23 against the real API server: a member whose probe answers carry {@code
 * endpoint-load-metrics: TEXT cpu_utilization=0.97}, in a pool with degradedUtilization 0.9, is
 * Degraded for saturation with its utilization in status; without the header it is Healthy again
 * once its reports are stale and the recovery hold has passed. And the capacity block: what the
 * members report can put a pool that its plan finds safe at risk.
 */
class SaturationIT {
  static OperatorHarness h;
  static Vertx vertx;
  static HttpServer member;
  static HttpServer second;

  /** The load header the member sends; null for none. */
  static final AtomicReference<String> load = new AtomicReference<>();

  @BeforeAll
  static void start() {
    h = new OperatorHarness("saturation");
    h.connectAcceptingDataPlane();
    vertx = Vertx.vertx();
    member = reportingMember();
    second = reportingMember();
  }

  /** A member that sends the load header set in {@link #load}, if any. */
  static HttpServer reportingMember() {
    HttpServer s =
        vertx
            .createHttpServer()
            .requestHandler(
                r -> {
                  String value = load.get();
                  if (value != null) {
                    r.response().putHeader("endpoint-load-metrics", value);
                  }
                  r.response().end("ok");
                });
    return s.listen(0, "127.0.0.1").await();
  }

  @AfterAll
  static void stop() {
    h.close();
    vertx.close().await();
  }

  static EndpointStatus row(ReplicaPool p) {
    assertThat(p.getStatus()).isNotNull();
    assertThat(p.getStatus().endpoints).hasSize(1);
    return p.getStatus().endpoints.get(0);
  }

  @Test
  void aMemberReportingHighUtilizationIsDegradedAndRecoversWhenItStops() {
    ReplicaPool pool = h.staticPool("busy", List.of("127.0.0.1:" + member.actualPort()));
    ReplicaPoolSpec spec = pool.getSpec();
    spec.healthCheck.unhealthyThreshold = 3; // the default: one slow probe must not hide saturation
    spec.healthCheck.degradedUtilization = 0.9;
    spec.routing.adaptive.recoverAfterMillis = 1_000;
    h.client.resource(pool).create();
    h.awaitPool(
        "busy",
        Duration.ofSeconds(20),
        p -> assertThat(row(p).state).isEqualTo(MemberState.Healthy));

    load.set("TEXT cpu_utilization=0.97");
    h.awaitPool(
        "busy",
        Duration.ofSeconds(20),
        p -> {
          EndpointStatus row = row(p);
          assertThat(row.state).isEqualTo(MemberState.Degraded);
          assertThat(row.message).isEqualTo("saturated: utilization 0.97 >= 0.90");
          assertThat(row.utilization).isEqualTo(0.97);
          // The DEGRADED-REASON printer column.
          assertThat(
                  p.getStatus().conditions.stream()
                      .filter(c -> c.getType().equals("Degraded"))
                      .findFirst()
                      .orElseThrow()
                      .getReason())
              .isEqualTo("EndpointSaturated");
        });

    load.set(null);
    h.awaitPool(
        "busy",
        Duration.ofSeconds(30),
        p -> {
          EndpointStatus row = row(p);
          assertThat(row.state).isEqualTo(MemberState.Healthy);
          assertThat(row.utilization).isNull();
        });
  }

  @Test
  void reportedUtilizationCanPutAPoolItsPlanFindsSafeAtRisk() {
    ReplicaPool pool =
        h.staticPool(
            "planned",
            List.of("127.0.0.1:" + member.actualPort(), "127.0.0.1:" + second.actualPort()));
    ReplicaPoolSpec spec = pool.getSpec();
    spec.capacity = new Capacity();
    spec.capacity.peakRequestsPerSecond = 100.0; // 50 each of 400: 0.125, 0.25 after one failure
    spec.capacity.perReplicaRequestsPerSecond = 400.0;
    spec.capacity.targetUtilization = 0.5;
    load.set("TEXT application_utilization=0.3");
    try {
      h.client.resource(pool).create();
      h.awaitPool(
          "planned",
          Duration.ofSeconds(20),
          p -> {
            assertThat(p.getStatus().capacity.utilizationAfterOneFailure).isEqualTo(0.25);
            assertThat(p.getStatus().capacity.reportedUtilization).isEqualTo(0.3);
            assertThat(p.getStatus().capacity.reportedUtilizationAfterOneFailure).isEqualTo(0.6);
            var atRisk =
                p.getStatus().conditions.stream()
                    .filter(c -> c.getType().equals("CapacityAtRisk"))
                    .findFirst()
                    .orElseThrow();
            assertThat(atRisk.getStatus()).isEqualTo("True");
            assertThat(atRisk.getMessage())
                .isEqualTo("one more failure puts reported utilization at 0.6 > 0.5");
          });
    } finally {
      load.set(null);
    }
  }
}
