package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.ReplicaProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How long a dead member stays in the data plane. The kernel closes a SIGKILLed process's sockets,
 * so the prober's kept-alive connection to it ends at once; the prober probes on that close instead
 * of waiting for the next probe (every 200 ms here), and the push follows the failed probe. A
 * frozen process (SIGSTOP) closes nothing and still waits for the next probe and its timeout.
 */
class KillDetectionIT {
  static final int KILLS = 8;
  static final int FREEZES = 3;
  static SystemHarness h;
  static final List<ReplicaProcess> k = new ArrayList<>();

  @BeforeAll
  static void start() {
    h = new SystemHarness("kill-detect");
    for (String name : List.of("k1", "k2", "k3")) {
      k.add(ReplicaProcess.start(name, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    }
  }

  @AfterAll
  static void stop() {
    k.forEach(ReplicaProcess::close);
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aKilledMemberLeavesTheDataPlaneWithinMillisecondsAFrozenOneAtTheNextProbe() {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("kills");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    k.forEach(r -> spec.endpoints.add(new StaticEndpoint(r.host(), r.port())));
    spec.route = new Route();
    spec.route.hosts = List.of("kills.local");
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    spec.routing.adaptive.recoverAfterMillis = 500;
    // Each member is killed or frozen four times within a minute on purpose: no flap limit here.
    spec.healthCheck.maxRecoveriesPerMinute = 100;
    pool.setSpec(spec);
    h.client.resource(pool).create();

    List<Long> fromKill = new ArrayList<>();
    List<Long> fromExit = new ArrayList<>();
    for (int i = 0; i < KILLS; i++) {
      awaitRoutableOnDataPlane(3, Duration.ofSeconds(30));
      int victim = i % k.size();
      ReplicaProcess dead = k.get(victim);
      long killed = System.nanoTime();
      dead.kill(); // returns once the process has been reaped
      long exited = System.nanoTime();
      awaitRoutableOnDataPlane(2, Duration.ofSeconds(5));
      long gone = System.nanoTime();
      fromKill.add((gone - killed) / 1_000_000);
      fromExit.add((gone - exited) / 1_000_000);
      k.set(victim, ReplicaProcess.start(dead.name(), dead.host(), dead.port()));
    }
    System.out.printf(
        "FIGURE kill-to-out-of-data-plane over %d SIGKILLs, probe every 200 ms: %s ms, p50 %d ms,"
            + " max %d ms; after the process was reaped: %s ms, p50 %d ms, max %d ms%n",
        KILLS, fromKill, p50(fromKill), max(fromKill), fromExit, p50(fromExit), max(fromExit));

    List<Long> frozen = new ArrayList<>();
    for (int i = 0; i < FREEZES; i++) {
      awaitRoutableOnDataPlane(3, Duration.ofSeconds(30));
      ReplicaProcess victim = k.get(i % k.size());
      long stopped = System.nanoTime();
      victim.freeze();
      awaitRoutableOnDataPlane(2, Duration.ofSeconds(5));
      frozen.add((System.nanoTime() - stopped) / 1_000_000);
      victim.thaw();
    }
    System.out.printf(
        "FIGURE freeze-to-out-of-data-plane over %d SIGSTOPs, probe every 200 ms, timeout 100 ms:"
            + " %s ms, p50 %d ms%n",
        FREEZES, frozen, p50(frozen));

    // How long a JVM takes to die varies with the machine's load; what follows is the prober's.
    // Waiting for the next probe alone gives a p50 near half the interval (100 ms) plus the probe.
    assertThat(p50(fromExit)).as("p50 of %s", fromExit).isLessThan(40);
  }

  private static long p50(List<Long> millis) {
    return millis.stream().sorted().toList().get(millis.size() / 2);
  }

  private static long max(List<Long> millis) {
    return millis.stream().max(Long::compare).orElseThrow();
  }

  static void awaitRoutableOnDataPlane(int n, Duration atMost) {
    await()
        .atMost(atMost)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(2))
        .until(() -> ScenarioS1IT.routableOnDataPlane(h.dataPlaneStatus(), "kills") == n);
  }
}
