package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A member change converges on both data planes, and the operator's /metrics counts it in {@code
 * replicapool_push_convergence_seconds{pool}}: a real API server, the operator, two data planes of
 * the pool's group, replicas as processes. A probe failure (a killed replica) is pushed from the
 * prober; a new Lease and an expired one are pushed from reconciles.
 */
class PushConvergenceIT {
  static SystemHarness h;
  static List<ReplicaProcess> replicas;

  @BeforeAll
  static void start() {
    h = new SystemHarness("converge");
    replicas = h.replicas("c1", "c2");
    h.extraDataPlane("dp-second", null, SystemHarness.TOKEN);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String metrics() {
    return h.operatorAdmin("/metrics").body();
  }

  /** The histogram's count for the pool, 0 when the series is not there yet. */
  static long count(String body, String pool) {
    Matcher m =
        Pattern.compile(
                "^replicapool_push_convergence_seconds_count\\{pool=\""
                    + Pattern.quote(pool)
                    + "\"} ([0-9.]+)$",
                Pattern.MULTILINE)
            .matcher(body);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  static String convergenceLines(String body) {
    return body.lines()
        .filter(l -> l.contains("replicapool_push_convergence_seconds"))
        .collect(Collectors.joining("\n"));
  }

  @Test
  void aMemberChangeIsCountedOnceBothDataPlanesAppliedIt() throws Exception {
    h.client.resource(h.pool("conv", replicas)).create();
    h.awaitReadyAndSynced("conv");
    String pool = h.namespace + "/conv";
    // Both data planes serve the pool and both members are routable: the first versions
    // converged on both. Ready comes with the first routable member, the second one's first
    // probe may land after it, so the two are awaited, not read once.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(ReplicaPools.conditionMessage(h.pool("conv").get(), "DataPlaneSynced"))
                  .startsWith("2/2 data planes applied");
              String body = metrics();
              assertThat(count(body, pool)).isPositive();
              // What the status says is there for alerts too (manifests/components/monitoring).
              assertThat(body)
                  .contains(
                      "replicapool_pool_condition{condition=\"Ready\",pool=\"" + pool + "\"} 1.0",
                      "replicapool_pool_routable_members{pool=\"" + pool + "\"} 2.0");
            });
    long before = count(metrics(), pool);

    // The member change: a replica dies, its next probe fails, the snapshot without it is pushed.
    replicas.get(1).kill();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              String body = metrics();
              assertThat(count(body, pool)).isGreaterThan(before);
              assertThat(body)
                  .contains("replicapool_pool_routable_members{pool=\"" + pool + "\"} 1.0");
              assertThat(body)
                  .containsPattern(
                      "replicapool_push_convergence_seconds_bucket\\{[^}]*pool=\""
                          + Pattern.quote(pool)
                          + "\"[^}]*} [0-9.]+");
            });
    String lines = convergenceLines(metrics());
    // Low cardinality: one series per pool, no data plane name in any label.
    assertThat(lines).doesNotContain("dp-converge").doesNotContain("dp-second");
    assertThat(lines).contains("# TYPE replicapool_push_convergence_seconds histogram");
    System.out.println("PushConvergenceIT /metrics excerpt:\n" + lines);

    // kubectl describe shows the last convergence in the DataPlaneSynced message.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("conv").get();
              assertThat(ReplicaPools.conditionMessage(p, "DataPlaneSynced"))
                  .containsPattern(
                      "2/2 data planes applied version [0-9]+; version [0-9]+ reached"
                          + " every data plane [0-9.]+ ms after the change");
            });
  }

  @Test
  void aNewLeaseAndAnExpiredOneAreEachCountedOnceBothDataPlanesAppliedThem() throws Exception {
    ReplicaPool leased = new ReplicaPool();
    leased.getMetadata().setName("leased");
    leased.getMetadata().setNamespace(h.namespace);
    leased.setSpec(new ReplicaPoolSpec());
    leased.getSpec().route = new Route();
    leased.getSpec().route.hosts = List.of("leased.local");
    leased.getSpec().registration = new Registration();
    // Only Leases decide: no probes, so every version here comes from a reconcile that a Lease
    // event (or a Lease's expiry) started.
    leased.getSpec().healthCheck.enabled = false;
    h.client.resource(leased).create();
    String pool = h.namespace + "/leased";
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(ReplicaPools.conditionMessage(h.pool("leased").get(), "DataPlaneSynced"))
                    .startsWith("2/2 data planes applied"));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(count(metrics(), pool)).isPositive());
    long empty = count(metrics(), pool);

    ReplicaProcess registered =
        h.closeLater(
            ReplicaProcess.startRegistered(
                "leased-1", "127.0.0.31", pool, h.apiServer.kubeConfigFile(), 900, 300));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(h.pool("leased").get().getStatus().routable).isEqualTo(1);
              assertThat(count(metrics(), pool)).isGreaterThan(empty);
            });
    long joined = count(metrics(), pool);

    registered.kill(); // its Lease is no longer renewed and expires after 900 ms
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(h.pool("leased").get().getStatus().registered).isZero();
              assertThat(count(metrics(), pool)).isGreaterThan(joined);
            });
  }
}
