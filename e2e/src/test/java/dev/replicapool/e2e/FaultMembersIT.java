package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One member of a three-member pool goes bad under steady load, in four ways, each in a pool of its
 * own beside two healthy replicas (h1, h2): it hangs (SIGSTOP), it resets connections, it answers
 * slowly, it answers 500. Each must end up in the state the health model gives it, visible in
 * status, with the traffic share that state means; the figures say what the clients saw on the way.
 * A last test checks that probes to a member that never answers do not pile up.
 */
class FaultMembersIT {
  static FaultSystem sys;
  static Vertx loadVertx;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static ReplicaProcess h1;
  static ReplicaProcess h2;
  static ReplicaProcess hanging;
  static ReplicaProcess slow;
  static ReplicaProcess failing;

  /**
   * A member silent mid-request gets 504 after this (the default, 30 s, is too long for a test).
   */
  static final long UPSTREAM_TIMEOUT_MILLIS = 2_000;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("fault-members");
    loadVertx = Vertx.vertx();
    op = sys.startOperator();
    dp =
        sys.startDataPlane(
            "dp-members",
            op.controlPlanePort(),
            s -> s.withUpstreamTimeouts(1_000, UPSTREAM_TIMEOUT_MILLIS));
    List<ReplicaProcess> r = sys.replicas("h1", "h2", "hang", "slow", "fail");
    h1 = r.get(0);
    h2 = r.get(1);
    hanging = r.get(2);
    slow = r.get(3);
    failing = r.get(4);
  }

  @AfterAll
  static void stop() {
    loadVertx.close().await();
    sys.close();
  }

  static EndpointStatus row(String pool, String address) {
    ReplicaPool p = sys.pool(pool).get();
    if (p == null || p.getStatus() == null) {
      return null;
    }
    return p.getStatus().endpoints.stream()
        .filter(e -> e.address.equals(address))
        .findFirst()
        .orElse(null);
  }

  static boolean inState(String pool, String address, MemberState state) {
    EndpointStatus e = row(pool, address);
    return e != null && e.state == state;
  }

  static void createAndAwaitAllRoutable(ReplicaPool pool) {
    sys.createAndAwaitAllRoutable(pool, dp);
  }

  static FaultLoad load(String pool) {
    FaultLoad load =
        FaultLoad.start(loadVertx, dp.trafficPort(), pool + ".local", 5, 4, 50_000, 10_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= 100);
    return load;
  }

  static int delta(Map<String, Integer> before, Map<String, Integer> after, String replica) {
    return after.getOrDefault(replica, 0) - before.getOrDefault(replica, 0);
  }

  @Test
  void aHangingMemberIsMarkedUnhealthyAndGetsNothingAfterwards() {
    createAndAwaitAllRoutable(
        sys.pool("hang", List.of(h1.address(), h2.address(), hanging.address())));
    FaultLoad load = load("hang");

    hanging.freeze();
    long frozenAt = System.nanoTime();
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> FaultSystem.poolOn(sys.status(dp), "hang").getInteger("routable") == 2);
      long pushedMillis = (System.nanoTime() - frozenAt) / 1_000_000;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> inState("hang", hanging.address(), MemberState.Unhealthy));
      long statusMillis = (System.nanoTime() - frozenAt) / 1_000_000;
      int sentAtPush = load.sent();
      Map<String, Integer> atPush = load.byReplicaNow();
      await().atMost(Duration.ofSeconds(20)).until(() -> load.ok() >= sentAtPush + 400);
      FaultLoad.Result r = load.stop();
      EndpointStatus e = row("hang", hanging.address());
      System.out.printf(
          "FIGURE member-hangs (SIGSTOP): %s; data plane stopped routing to it after %d ms,"
              + " status %s (%s) after %d ms; answers from it after that: %d%n",
          r, pushedMillis, e.state, e.message, statusMillis, delta(atPush, r.byReplica(), "hang"));
      assertThat(delta(atPush, r.byReplica(), "hang")).isZero();
      // Only requests already sent to it before the push may fail, and only by the upstream
      // timeout (504): the load keeps at most 4 in flight.
      assertThat(r.failures().keySet()).isSubsetOf("status 504");
      assertThat(r.failed()).isLessThanOrEqualTo(8);
      assertThat(e.weight).isZero();
    } finally {
      hanging.thaw();
    }
  }

  @Test
  void aMemberThatResetsConnectionsCostsNoRequestThanksToRetries() throws Exception {
    try (FaultTcpMember reset = FaultTcpMember.resetting()) {
      ReplicaPool pool = sys.pool("reset", List.of(h1.address(), h2.address()));
      createAndAwaitAllRoutable(pool);
      FaultLoad load = load("reset");
      // The resetting member joins the pool under load. It is Pending, not routed, until a probe
      // passes; were it routed, a reset before any response would be retried on another member.
      String[] hostPort = reset.address().split(":");
      ReplicaPools.editSpec(
          sys.pool("reset"),
          p -> {
            p.getSpec()
                .endpoints
                .add(new StaticEndpoint(hostPort[0], Integer.parseInt(hostPort[1])));
            return p;
          });
      long addedAt = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> inState("reset", reset.address(), MemberState.Unhealthy));
      long statusMillis = (System.nanoTime() - addedAt) / 1_000_000;
      int okNow = load.ok();
      await().atMost(Duration.ofSeconds(20)).until(() -> load.ok() >= okNow + 300);
      FaultLoad.Result r = load.stop();
      double retries = metric(dp, "replicapool_retries_total", "reset");
      double ejections = metric(dp, "replicapool_ejections_total", "reset");
      System.out.printf(
          "FIGURE member-resets-connections: %s; Unhealthy in status %d ms after it joined;"
              + " connections it reset: %d; data-plane retries %.0f, ejections %.0f%n",
          r, statusMillis, reset.accepted(), retries, ejections);
      assertThat(r.failed()).as("failed requests: %s", r).isZero();
      assertThat(row("reset", reset.address()).weight).isZero();
    }
  }

  @Test
  void aSlowMemberIsDegradedAndGetsLittleTrafficFromTheAdaptivePool() {
    ReplicaPool pool = sys.pool("slow", List.of(h1.address(), h2.address(), slow.address()));
    pool.getSpec().routing.policy = RoutingPolicy.Adaptive;
    pool.getSpec().routing.adaptive.baselineLatencyMillis = 50;
    pool.getSpec().healthCheck.intervalMillis = 300;
    pool.getSpec().healthCheck.timeoutMillis = 250;
    createAndAwaitAllRoutable(pool);
    FaultLoad load = load("slow");

    sys.replicaAdmin(slow, "slow?ms=150");
    long slowAt = System.nanoTime();
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> inState("slow", slow.address(), MemberState.Degraded));
      long statusMillis = (System.nanoTime() - slowAt) / 1_000_000;
      await().atMost(Duration.ofSeconds(20)).until(() -> row("slow", slow.address()).weight <= 0.1);
      Map<String, Integer> before = load.byReplicaNow();
      int okBefore = load.ok();
      await().atMost(Duration.ofSeconds(30)).until(() -> load.ok() >= okBefore + 600);
      FaultLoad.Result r = load.stop();
      int toSlow = delta(before, r.byReplica(), "slow");
      int all = r.ok() - okBefore;
      EndpointStatus e = row("slow", slow.address());
      System.out.printf(
          "FIGURE member-slow (150 ms, baseline 50 ms, Adaptive): %s; Degraded after %d ms (%s),"
              + " weight %.2f, p95 %d ms; share afterwards %d/%d = %.1f %% (round-robin: 33.3 %%)%n",
          r,
          statusMillis,
          e.message,
          e.weight,
          e.latencyP95Millis,
          toSlow,
          all,
          100.0 * toSlow / all);
      assertThat(r.failed()).as("failed requests: %s", r).isZero();
      assertThat((double) toSlow / all).isLessThan(0.10);
      assertThat(e.weight).isGreaterThan(0.0);
    } finally {
      sys.replicaAdmin(slow, "reset");
    }
  }

  @Test
  void aMemberAnswering500IsMarkedUnhealthyAndOnlyTheWindowBeforeThatFails() {
    ReplicaPool pool = sys.pool("errors", List.of(h1.address(), h2.address(), failing.address()));
    // The failing member answers 500 at once, so a long probe timeout does not delay finding it,
    // and it keeps a stall of this machine from marking the healthy two Unhealthy as well (then the
    // pool has no member and answers 503).
    pool.getSpec().healthCheck.intervalMillis = 500;
    pool.getSpec().healthCheck.timeoutMillis = 400;
    createAndAwaitAllRoutable(pool);
    FaultLoad load = load("errors");

    sys.replicaAdmin(failing, "errors?rate=1");
    long failingAt = System.nanoTime();
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> FaultSystem.poolOn(sys.status(dp), "errors").getInteger("routable") == 2);
      long pushedMillis = (System.nanoTime() - failingAt) / 1_000_000;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> inState("errors", failing.address(), MemberState.Unhealthy));
      int failedAtPush = load.failedSoFar();
      int okNow = load.ok();
      await().atMost(Duration.ofSeconds(20)).until(() -> load.ok() >= okNow + 400);
      FaultLoad.Result r = load.stop();
      System.out.printf(
          "FIGURE member-500s: %s; data plane stopped routing to it after %d ms; failures after"
              + " that: %d%n",
          r, pushedMillis, r.failed() - failedAtPush);
      assertThat(r.failures().keySet()).isSubsetOf("status 500");
      assertThat(r.failed()).as("only the detection window fails").isEqualTo(failedAtPush);
      assertThat(row("errors", failing.address()).weight).isZero();
    } finally {
      sys.replicaAdmin(failing, "reset");
    }
  }

  /**
   * Connections the silent member may see open at once: the probe in flight, the one before it that
   * the prober closed at its timeout, and one more when the member's own reader thread is late to
   * see a close on a stalled machine. Probes that piled up would reach dozens in the 3 s.
   */
  static final int SILENT_OPEN_AT_MOST = 3;

  @Test
  void probesToAMemberThatNeverAnswersDoNotPileUp() throws Exception {
    try (FaultTcpMember silent = FaultTcpMember.silent()) {
      ReplicaPool pool = sys.pool("silent", List.of(h1.address(), silent.address()));
      pool.getSpec().healthCheck.intervalMillis = 50;
      pool.getSpec().healthCheck.timeoutMillis = 40;
      sys.create(pool);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> inState("silent", silent.address(), MemberState.Unhealthy));
      long timedOutBefore = op.proberStats().timedOut();
      int acceptedBefore = silent.accepted();
      silent.resetMaxOpen();
      AtomicInteger maxInFlight = new AtomicInteger();
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(4))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                var stats = op.proberStats();
                maxInFlight.accumulateAndGet(stats.inFlight(), Math::max);
                return silent.openNow() <= SILENT_OPEN_AT_MOST
                    && stats.inFlight() <= stats.tracked();
              });
      var stats = op.proberStats();
      long timedOut = stats.timedOut() - timedOutBefore;
      int connections = silent.accepted() - acceptedBefore;
      System.out.printf(
          "FIGURE probes-to-a-silent-member (every 50 ms, timeout 40 ms, 3 s): %d probes timed out"
              + " over %d connections; at most %d open at the member at once; prober in flight at"
              + " most %d for %d tracked members%n",
          timedOut, connections, silent.maxOpen(), maxInFlight.get(), stats.tracked());
      assertThat(timedOut).as("probes keep coming").isGreaterThanOrEqualTo(20);
      assertThat(silent.maxOpen()).isLessThanOrEqualTo(SILENT_OPEN_AT_MOST);
      assertThat(maxInFlight.get()).isLessThanOrEqualTo(stats.tracked());
    }
  }

  /** Sum of a data-plane counter over the series of one pool. */
  static double metric(DataPlane dp, String name, String pool) {
    String text = sys.admin(dp, "/metrics").body();
    Matcher m =
        Pattern.compile(
                "^" + name + "\\{[^}]*pool=\"[^\"]*/" + pool + "\"[^}]*\\} ([0-9.eE+-]+)$",
                Pattern.MULTILINE)
            .matcher(text);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }
}
