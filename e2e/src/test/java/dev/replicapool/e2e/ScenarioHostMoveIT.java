package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the data plane runs converges on the spec when a snapshot was rejected: a host that moves
 * from pool X to pool Y with Y edited first (the data plane refuses Y while X holds the host), and
 * two pools that swap hosts (each refused while the other holds its new host), under light load
 * (one request after another). A rejected pool's other changes (a member removed) apply with it.
 */
class ScenarioHostMoveIT {
  static SystemHarness h;
  static ReplicaProcess x1;
  static ReplicaProcess y1;
  static ReplicaProcess y2;

  @BeforeAll
  static void start() {
    h = new SystemHarness("hostmove");
    List<ReplicaProcess> r = h.replicas("x1", "y1", "y2");
    x1 = r.get(0);
    y1 = r.get(1);
    y2 = r.get(2);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** One answer of the light load: when (ns), for which host, its status and replica. */
  record Sample(long nanos, String host, int status, String replica) {}

  /** One request after another, alternating between the hosts, on a connection of its own. */
  static final class LightLoad implements AutoCloseable {
    final List<Sample> samples = new CopyOnWriteArrayList<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    final ExecutorService thread = Executors.newSingleThreadExecutor();
    final Future<?> done;

    LightLoad(String... hosts) {
      done =
          thread.submit(
              () -> {
                KeepAliveClient client = null;
                for (long i = 0; running.get(); i++) {
                  String host = hosts[(int) (i % hosts.length)];
                  try {
                    if (client == null) {
                      client = new KeepAliveClient("127.0.0.1", h.dataPlane.trafficPort());
                    }
                    KeepAliveClient.Response r = client.get(host, "/track/" + i);
                    samples.add(new Sample(System.nanoTime(), host, r.status(), r.replica()));
                  } catch (IOException e) {
                    samples.add(new Sample(System.nanoTime(), host, -1, null));
                    client = null;
                  }
                }
                return null;
              });
    }

    List<Sample> failures() {
      return samples.stream().filter(s -> s.status() != 200).toList();
    }

    /** The last sample of the host, null before the first. */
    Sample last(String host) {
      Sample last = null;
      for (Sample s : samples) {
        if (s.host().equals(host)) {
          last = s;
        }
      }
      return last;
    }

    @Override
    public void close() throws Exception {
      running.set(false);
      done.get();
      thread.shutdown();
    }
  }

  ReplicaPool pool(String name, List<String> hosts, ReplicaProcess... members) {
    ReplicaPool p = h.pool(name, List.of(members));
    p.getSpec().route.hosts = hosts;
    return p;
  }

  void setHosts(String pool, List<String> hosts) {
    edit(
        pool,
        p -> {
          p.getSpec().route.hosts = hosts;
          return p;
        });
  }

  /** Edits the pool's spec, again when a status write of the operator came in between (409). */
  void edit(String pool, UnaryOperator<ReplicaPool> change) {
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptionsMatching(
            e -> e instanceof KubernetesClientException k && k.getCode() == 409)
        .until(
            () -> {
              h.pool(pool).edit(change);
              return true;
            });
  }

  static Condition synced(String pool) {
    return h.pool(pool).get().getStatus().conditions.stream()
        .filter(c -> c.getType().equals("DataPlaneSynced"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aHostMovedToAPoolEditedFirstIsServedByItOnceTheOtherLetsGo() throws Exception {
    h.client.resource(pool("mx", List.of("mx.local", "moved.local"), x1)).create();
    h.client.resource(pool("my", List.of("my.local"), y1, y2)).create();
    h.awaitReadyAndSynced("mx");
    h.awaitReadyAndSynced("my");

    try (LightLoad load = new LightLoad("moved.local", "my.local")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> load.last("my.local") != null);
      // Y first: the data plane refuses it while X holds moved.local, and says so in status.
      long firstEdit = System.nanoTime();
      setHosts("my", List.of("my.local", "moved.local"));
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Condition c = synced("my");
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getMessage()).contains("host moved.local is already routed to pool");
              });
      // While rejected, Y loses a member: that change waits with the rest of Y's spec.
      edit(
          "my",
          p -> {
            p.getSpec().endpoints = List.of(new StaticEndpoint(y1.host(), y1.port()));
            return p;
          });
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(synced("my").getMessage()).contains("already routed to pool"));

      // X lets go: Y's latest spec applies without another change of Y.
      long secondEdit = System.nanoTime();
      setHosts("mx", List.of("mx.local"));
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Sample s = load.last("moved.local");
                assertThat(s.nanos()).isGreaterThan(secondEdit);
                assertThat(s.replica()).isEqualTo("y1");
              });
      long servedByY =
          load.samples.stream()
              .filter(s -> s.nanos() > secondEdit && "y1".equals(s.replica()))
              .filter(s -> s.host().equals("moved.local"))
              .mapToLong(Sample::nanos)
              .min()
              .orElseThrow();
      h.awaitReadyAndSynced("my");
      int before = load.samples.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> load.samples.size() > before + 40);
      load.close();

      List<Sample> failures = load.failures();
      System.out.printf(
          "FIGURE ScenarioHostMoveIT move: %d requests, %d not 200 (%s); moved.local served by Y %d"
              + " ms after X's edit was sent%n",
          load.samples.size(),
          failures.size(),
          failures.stream().map(f -> f.host() + " " + f.status()).distinct().toList(),
          (servedByY - secondEdit) / 1_000_000);
      // No 404 before X's edit (Y's refusal changed nothing live), none after the move applied.
      assertThat(failures)
          .allSatisfy(
              f -> {
                assertThat(f.nanos()).isBetween(secondEdit, servedByY);
                assertThat(f.status()).isEqualTo(404);
              });
      assertThat(firstEdit).isLessThan(secondEdit);
      // The member removed while Y was rejected gets nothing once Y applied.
      List<Sample> afterMove = new ArrayList<>();
      for (Sample s : load.samples) {
        if (s.nanos() > servedByY && s.host().equals("my.local")) {
          afterMove.add(s);
        }
      }
      assertThat(afterMove).hasSizeGreaterThanOrEqualTo(20);
      assertThat(afterMove).allSatisfy(s -> assertThat(s.replica()).isEqualTo("y1"));
    }
  }

  @Test
  void twoPoolsThatSwapHostsConverge() throws Exception {
    h.client.resource(pool("sa", List.of("one.local"), x1)).create();
    h.client.resource(pool("sb", List.of("two.local"), y1)).create();
    h.awaitReadyAndSynced("sa");
    h.awaitReadyAndSynced("sb");

    try (LightLoad load = new LightLoad("one.local", "two.local")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> load.last("two.local") != null);
      setHosts("sa", List.of("two.local")); // refused: sb holds two.local
      setHosts("sb", List.of("one.local")); // refused: sa holds one.local
      long edited = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                assertThat(load.last("one.local").replica()).isEqualTo("y1");
                assertThat(load.last("two.local").replica()).isEqualTo("x1");
              });
      long swapped = System.nanoTime();
      h.awaitReadyAndSynced("sa");
      h.awaitReadyAndSynced("sb");
      load.close();

      List<Sample> failures = load.failures();
      System.out.printf(
          "FIGURE ScenarioHostMoveIT swap: %d requests, %d not 200; swapped within %d ms of the"
              + " second edit%n",
          load.samples.size(), failures.size(), (swapped - edited) / 1_000_000);
      // Both halves apply in one table swap: a host is never without a pool.
      assertThat(failures).isEmpty();
    }
  }
}
