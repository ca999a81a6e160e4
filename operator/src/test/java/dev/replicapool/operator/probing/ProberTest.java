package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.operator.probing.Prober.Scheduling;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Probes real HTTP servers on 127.0.0.1, with both scheduling strategies; the schedules themselves
 * are tested run by run on fake time in {@link ProbeSchedulerTest}.
 */
class ProberTest {
  private static Vertx vertx;
  private TestServer server;
  private Prober prober;
  private final List<ProbeResult> results = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stopVertx() throws Exception {
    // Clean-up, not a test: every assertion ran before it. Once in CI, after all 27 tests passed,
    // this Vert.x instance's close had not finished after 60 s (one prober's close had already
    // given up after its 5 s in probesBeyondMaxInFlightAreShedNotFailed); not reproduced in three
    // runs alone. Say so with the threads that hold it, and leave the instance to the JVM's exit.
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      System.err.println("ProberTest: Vert.x close not done after 20 s; its threads:");
      Thread.getAllStackTraces().entrySet().stream()
          .filter(t -> t.getKey().getName().startsWith("vert.x"))
          .forEach(
              t ->
                  System.err.println(
                      t.getKey().getName() + " " + java.util.Arrays.toString(t.getValue())));
    }
  }

  @BeforeEach
  void startServer() throws Exception {
    server = new TestServer(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    if (prober != null) {
      prober.close();
    }
    server.close();
  }

  private Prober prober(Scheduling scheduling) {
    prober = new Prober(vertx, results::add, Prober.Options.defaults().withScheduling(scheduling));
    return prober;
  }

  private static MemberKey key(String member) {
    return new MemberKey("ns/pool", member);
  }

  private List<ProbeResult> resultsOf(MemberKey key) {
    return results.stream().filter(r -> r.key().equals(key)).toList();
  }

  /** A prober on fake time (see {@link FakeTimeProber}). */
  private FakeTimeProber proberOnFakeTime(Scheduling scheduling) throws Exception {
    FakeTimeProber p =
        new FakeTimeProber(
            vertx, results::add, Prober.Options.defaults().withScheduling(scheduling));
    prober = p.prober;
    return p;
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void healthyMemberSucceedsAtItsInterval(Scheduling scheduling) throws Exception {
    MemberKey k = key("ok");
    // On fake time that stands still while a probe runs: a loaded machine's pause can neither
    // turn a local probe into a failure nor stretch the pace. Real HTTP to a real server.
    FakeTimeProber onFakeTime = proberOnFakeTime(scheduling);
    prober.track(k, "127.0.0.1", server.port(), "/ok", 100, 90);

    onFakeTime.advanceUntil(() -> resultsOf(k).size() >= 11);

    List<ProbeResult> rs = resultsOf(k);
    assertThat(rs)
        .allSatisfy(
            r -> {
              assertThat(r.success()).isTrue();
              assertThat(r.statusCode()).isEqualTo(200);
              assertThat(r.error()).isNull();
              assertThat(r.latencyMillis()).isBetween(0L, 90L);
              assertThat(r.pool()).isEqualTo("ns/pool");
              assertThat(r.address()).isEqualTo("ok");
            });
    // Ten gaps between eleven results: the interval, not the latency, sets the pace (missed
    // rounds after a pause are skipped, so the span can only grow by a pause).
    long spanMillis = rs.get(10).at().toEpochMilli() - rs.get(0).at().toEpochMilli();
    assertThat(spanMillis).isBetween(850L, 1_600L);
    assertThat(prober.stats().succeeded()).isGreaterThanOrEqualTo(11);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void oneKeptAliveConnectionPerMember(Scheduling scheduling) {
    prober(scheduling);
    for (int i = 0; i < 3; i++) {
      // A timeout far above the answer's time: a probe that timed out on a stalled machine would
      // reset the shared connection, which is another test's subject, not this one's.
      prober.track(key("m" + i), "127.0.0.1", server.port(), "/ok", 250, 200);
    }

    await().atMost(Duration.ofSeconds(15)).until(() -> results.size() >= 30);

    // Members of one origin share its single pooled connection.
    assertThat(server.openedConnections.get()).isEqualTo(1);
    assertThat(server.closedConnections.get()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void http500IsAFailure(Scheduling scheduling) {
    MemberKey k = key("fail");
    prober(scheduling).track(k, "127.0.0.1", server.port(), "/fail", 100, 50);

    await().atMost(Duration.ofSeconds(5)).until(() -> resultsOf(k).size() >= 3);

    assertThat(resultsOf(k))
        .allSatisfy(
            r -> {
              assertThat(r.success()).isFalse();
              assertThat(r.statusCode()).isEqualTo(500);
              assertThat(r.error()).isEqualTo("HTTP 500");
            });
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void slowBeyondTheTimeoutFailsAndIsCancelled(Scheduling scheduling) {
    MemberKey k = key("hang");
    prober(scheduling).track(k, "127.0.0.1", server.port(), "/hang", 200, 50);

    await().atMost(Duration.ofSeconds(5)).until(() -> resultsOf(k).size() >= 4);

    assertThat(resultsOf(k))
        .allSatisfy(
            r -> {
              assertThat(r.success()).isFalse();
              assertThat(r.statusCode()).isEqualTo(-1);
              assertThat(r.error()).isEqualTo("timeout after 50 ms");
              assertThat(r.latencyMillis()).isBetween(50L, 400L); // the timeout, not the hang
            });
    // Each timed-out probe was reset: its connection closed, never more than one hanging.
    await().atMost(Duration.ofSeconds(2)).until(() -> server.closedConnections.get() >= 3);
    assertThat(server.maxHanging.get()).isEqualTo(1);
    assertThat(prober.stats().timedOut()).isGreaterThanOrEqualTo(4);
    assertThat(prober.stats().inFlight()).isLessThanOrEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void atMostOneProbePerMemberInFlight(Scheduling scheduling) {
    MemberKey k = key("hang-long");
    // A timeout longer than the interval: probes due while one hangs are skipped.
    prober(scheduling).track(k, "127.0.0.1", server.port(), "/hang", 20, 400);

    await().atMost(Duration.ofSeconds(5)).until(() -> resultsOf(k).size() >= 2);

    assertThat(server.maxHanging.get()).isEqualTo(1);
    assertThat(prober.stats().skipped()).isGreaterThanOrEqualTo(10);
    assertThat(prober.stats().inFlight()).isLessThanOrEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void probesBeyondMaxInFlightAreShedNotFailed(Scheduling scheduling) {
    prober =
        new Prober(
            vertx,
            results::add,
            Prober.Options.defaults().withScheduling(scheduling).withMaxInFlight(2));
    for (int i = 0; i < 6; i++) {
      prober.track(key("hang" + i), "127.0.0.1", server.port(), "/hang", 100, 90);
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> prober.stats().shed() >= 10);

    assertThat(server.maxHanging.get()).isLessThanOrEqualTo(2);
    assertThat(prober.stats().inFlight()).isLessThanOrEqualTo(2);
    // Shed probes report nothing: every result is a real timeout.
    assertThat(results).allSatisfy(r -> assertThat(r.error()).isEqualTo("timeout after 90 ms"));
    assertThat((long) results.size()).isLessThanOrEqualTo(prober.stats().started());
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void connectsAreLimitedButConnectedMembersAreNot(Scheduling scheduling) {
    prober =
        new Prober(
            vertx,
            results::add,
            Prober.Options.defaults().withScheduling(scheduling).withMaxConnecting(1));
    for (int i = 0; i < 5; i++) {
      // Every probe of a hanging member times out, is reset, and must connect again.
      prober.track(key("hang" + i), "127.0.0.1", server.port(), "/hang", 100, 90);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> prober.stats().shed() >= 10);
    assertThat(server.maxHanging.get()).isEqualTo(1);
    for (int i = 0; i < 5; i++) {
      prober.untrack(key("hang" + i));
    }

    for (int i = 0; i < 10; i++) {
      prober.track(key("ok" + i), "127.0.0.1", server.port(), "/ok?m=" + i, 100, 90);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                results.stream()
                        .filter(r -> r.success() && r.address().startsWith("ok"))
                        .map(ProbeResult::key)
                        .distinct()
                        .count()
                    == 10);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void answerAfterTheTimeoutIsAFailureAndWithinItASuccess(Scheduling scheduling) {
    MemberKey late = key("late");
    MemberKey inTime = key("in-time");
    prober(scheduling);
    prober.track(late, "127.0.0.1", server.port(), "/delay?ms=120", 300, 60);
    prober.track(inTime, "127.0.0.1", server.port(), "/delay?ms=60", 300, 250);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> resultsOf(late).size() >= 2 && resultsOf(inTime).size() >= 2);

    assertThat(resultsOf(late)).allSatisfy(r -> assertThat(r.success()).isFalse());
    assertThat(resultsOf(inTime))
        .allSatisfy(
            r -> {
              assertThat(r.success()).isTrue();
              assertThat(r.latencyMillis()).isGreaterThanOrEqualTo(60);
            });
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void connectionRefusedIsAFailure(Scheduling scheduling) throws Exception {
    HttpServer gone =
        vertx
            .createHttpServer()
            .requestHandler(r -> r.response().end())
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    int port = gone.actualPort();
    gone.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    MemberKey k = key("refused");

    prober(scheduling).track(k, "127.0.0.1", port, "/ok", 100, 50);

    await().atMost(Duration.ofSeconds(5)).until(() -> resultsOf(k).size() >= 3);
    assertThat(resultsOf(k))
        .allSatisfy(
            r -> {
              assertThat(r.success()).isFalse();
              assertThat(r.statusCode()).isEqualTo(-1);
              assertThat(r.error()).containsIgnoringCase("refused");
            });
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void untrackStopsProbes(Scheduling scheduling) {
    MemberKey k = key("ok");
    prober(scheduling).track(k, "127.0.0.1", server.port(), "/ok", 50, 40);
    await().atMost(Duration.ofSeconds(5)).until(() -> server.count("/ok") >= 3);

    prober.untrack(k);

    assertThat(prober.tracked()).isEmpty();
    await().atMost(Duration.ofSeconds(2)).until(() -> prober.stats().inFlight() == 0);
    int served = server.count("/ok");
    int reported = results.size();
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> server.count("/ok") == served && results.size() == reported);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void firstProbesAreSpreadOverTheInterval(Scheduling scheduling) {
    prober(scheduling);
    long tracked = System.nanoTime();
    int members = 40;
    for (int i = 0; i < members; i++) {
      prober.track(key("m" + i), "127.0.0.1", server.port(), "/ok?m=" + i, 1_000, 500);
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> server.firstSeenNanos.size() == members);

    List<Long> offsets = new ArrayList<>();
    server.firstSeenNanos.values().forEach(n -> offsets.add((n - tracked) / 1_000_000));
    Collections.sort(offsets);
    assertThat(offsets.get(members - 1) - offsets.get(0)).isGreaterThan(400);
    assertThat(offsets.get(members - 1)).isLessThan(1_500);
    // No burst: uniform over 1 s puts about 4 in any 100 ms.
    for (int i = 0; i < members; i++) {
      long from = offsets.get(i);
      long inWindow = offsets.stream().filter(o -> o >= from && o < from + 100).count();
      assertThat(inWindow).as("first probes within 100 ms of %d ms", from).isLessThan(16);
    }
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void retuneChangesTheIntervalAndTrackingTwiceChangesNothing(Scheduling scheduling) {
    MemberKey k = key("ok");
    prober(scheduling).track(k, "127.0.0.1", server.port(), "/ok", 5_000, 100);
    prober.track(k, "127.0.0.1", server.port(), "/ok", 5_000, 100);
    assertThat(prober.tracked()).containsExactly(k);

    assertThat(prober.retune(k, 50, 40)).isTrue();

    await().atMost(Duration.ofSeconds(3)).until(() -> resultsOf(k).size() >= 10);
    assertThat(prober.retune(key("unknown"), 50, 40)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void manyMembersOfManyPools(Scheduling scheduling) throws Exception {
    // On fake time: 100 probes on one shared connection must not time out on a loaded machine.
    FakeTimeProber onFakeTime = proberOnFakeTime(scheduling);
    for (int pool = 0; pool < 10; pool++) {
      for (int m = 0; m < 10; m++) {
        String path = pool == 3 && m == 7 ? "/fail" : "/ok";
        prober.track(
            new MemberKey("ns/p" + pool, "m" + m), "127.0.0.1", server.port(), path, 200, 150);
      }
    }

    onFakeTime.advanceUntil(() -> results.stream().map(ProbeResult::key).distinct().count() == 100);

    var failing =
        results.stream()
            .filter(r -> !r.success())
            .map(ProbeResult::key)
            .collect(Collectors.toSet());
    assertThat(failing).containsExactly(new MemberKey("ns/p3", "m7"));
    prober.untrackPool("ns/p3");
    assertThat(prober.tracked()).hasSize(90);
  }
}
