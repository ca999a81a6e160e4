package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.RefusedPort;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Deletion is final: pools deleted at random moments of their reconciliation (before the first one,
 * while members are probed and flap, while status is written), three at a time, leave nothing in
 * the operator (reconciler, prober, control-plane store) nor on the data plane, and their status
 * writes that find them gone are no errors.
 */
class PoolDeletionIT {
  static final int WORKERS = 3;
  static final int DELETIONS_PER_WORKER = 100;

  static FaultSystem sys;
  static ReplicaPoolOperator operator;
  static DataPlane dataPlane;
  static List<ReplicaProcess> flapping;
  static ReplicaProcess restarting;
  static RefusedPort dead;
  static final ListAppender<ILoggingEvent> josdkLog = new ListAppender<>();

  @BeforeAll
  static void start() {
    sys = new FaultSystem("deletion");
    operator = sys.startOperator();
    dataPlane = sys.startDataPlane("dp-deletion", operator.controlPlanePort());
    flapping = sys.replicas("d1", "d2");
    restarting = sys.replica("d3");
    dead = sys.closeLater(new RefusedPort("127.0.0.1")); // a member nobody answers for
    josdkLog.start();
    ((Logger) LoggerFactory.getLogger("io.javaoperatorsdk")).addAppender(josdkLog);
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger("io.javaoperatorsdk")).detachAppender(josdkLog);
    sys.close();
  }

  /** Members partly down: two that flip healthy and unhealthy, one killed and started, one dead. */
  List<String> members() {
    List<String> addresses = new ArrayList<>();
    flapping.forEach(r -> addresses.add(r.address()));
    addresses.add(restarting.address());
    addresses.add(dead.address());
    return addresses;
  }

  /** Flips members until told to stop: each flip is a probe transition, a push, a status write. */
  static Runnable flapper(AtomicBoolean running) {
    return () -> {
      int round = 0;
      while (running.get()) {
        ReplicaProcess r = flapping.get(round % flapping.size());
        sys.replicaAdmin(r, ThreadLocalRandom.current().nextBoolean() ? "unhealthy" : "healthy");
        if (++round % 20 == 0) {
          // Killed, then started again on its port: its probe connection closes, then it answers.
          restarting.kill();
          restarting = sys.closeLater(ReplicaProcess.start("d3", "127.0.0.1", restarting.port()));
        }
        pause(ThreadLocalRandom.current().nextInt(20, 120));
      }
    };
  }

  @Test
  void poolsDeletedAtAnyMomentLeaveNothingBehind() throws Exception {
    List<String> members = members();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger deletions = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(WORKERS + 1);
    try {
      Future<?> flaps = threads.submit(flapper(running));
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        int worker = w;
        workers.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < DELETIONS_PER_WORKER; i++) {
                    createAndDelete(worker, i, members);
                    deletions.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> f : workers) {
        f.get();
      }
      running.set(false);
      flaps.get();
    } finally {
      running.set(false);
      threads.shutdownNow();
    }
    assertThat(deletions).hasValue(WORKERS * DELETIONS_PER_WORKER);

    long deletedAt = System.nanoTime();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(PoolDeletionIT::nothingLeft);
    long settledMillis = (System.nanoTime() - deletedAt) / 1_000_000;
    // Nothing comes back either: a late reconcile or probe result would bring a pool back here.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(PoolDeletionIT::nothingLeft);
    System.out.printf(
        "FIGURE PoolDeletionIT: %d deletions; operator and data plane empty %d ms after the last%n",
        deletions.get(), settledMillis);

    assertThat(josdkLog.list)
        .as("JOSDK errors and warnings while pools were deleted")
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .isEmpty();

    // Their hosts are free: a new pool on each is applied and serves.
    for (int w = 0; w < WORKERS; w++) {
      ReplicaPool heir = sys.pool("heir-" + w, List.of(flapping.get(0).address()));
      heir.getSpec().route.hosts = List.of(host(w));
      sys.client.resource(heir).create();
    }
    sys.replicaAdmin(flapping.get(0), "healthy");
    for (int w = 0; w < WORKERS; w++) {
      String host = host(w);
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(sys.httpGet(dataPlane.trafficPort(), host, "/").status())
                      .isEqualTo(200));
    }
  }

  static String host(int worker) {
    return "w" + worker + ".deletion.local";
  }

  /** Creates a pool on the worker's host, lets it live 0 to 600 ms, deletes it. */
  void createAndDelete(int worker, int i, List<String> members) {
    ReplicaPool pool = sys.pool("w" + worker + "-" + i, members);
    pool.getSpec().route.hosts = List.of(host(worker));
    pool.getSpec().healthCheck.intervalMillis = 100;
    pool.getSpec().healthCheck.timeoutMillis = 50;
    sys.client.resource(pool).create();
    int lifetime = ThreadLocalRandom.current().nextInt(-100, 600); // a sixth: deleted at once
    if (lifetime > 0) {
      pause(lifetime);
    }
    sys.client.resource(pool).withGracePeriod(0).delete();
  }

  /** A random pause between two steps: the test's input (when things happen), not a wait. */
  static void pause(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void nothingLeft() {
    ReplicaPoolOperator.PoolTraces traces = operator.poolTraces();
    assertThat(traces.reconciled()).as("pools the reconciler holds").isEmpty();
    assertThat(traces.probed()).as("pools the prober probes").isEmpty();
    assertThat(traces.published()).as("pools the control plane serves").isEmpty();
    assertThat(dataPlane.store().table().pools()).as("pools the data plane routes").isEmpty();
    JsonArray onStatus = sys.status(dataPlane).getJsonArray("pools");
    assertThat(onStatus).as("pools on the data plane's /status").isEmpty();
  }
}
