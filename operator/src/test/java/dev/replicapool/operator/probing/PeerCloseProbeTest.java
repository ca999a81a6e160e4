package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.testing.CloseLater;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.NetServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Probes on connections the member closes: a death is probed at once, over HTTP and gRPC; a close
 * announced, by design or after the prober stopped caused nothing; a silent death still waits for
 * the next probe.
 */
class PeerCloseProbeTest {
  private static final MemberKey KEY = new MemberKey("ns/pool", "m");
  private static final ProbeSpec GRPC =
      new ProbeSpec(
          HealthCheckType.GRPC, null, null, null, "", null, ProbeSpec.Transport.H2C, null);

  private Vertx vertx;
  private Prober prober;
  private final CloseLater toClose = new CloseLater();
  private final AtomicInteger requests = new AtomicInteger();
  private final List<ProbeResult> results = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    prober = new Prober(vertx, results::add);
  }

  @AfterEach
  void stop() throws Exception {
    prober.close();
    toClose.closeAll();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int serve(Consumer<HttpServerRequest> handler) throws Exception {
    HttpServer server =
        vertx
            .createHttpServer()
            .requestHandler(
                r -> {
                  requests.incrementAndGet();
                  handler.accept(r);
                })
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    toClose.add(() -> server.close().toCompletionStage().toCompletableFuture().get());
    return server.actualPort();
  }

  private DyingRelay relayTo(int port) throws Exception {
    DyingRelay relay = new DyingRelay(vertx, port);
    toClose.add(relay);
    return relay;
  }

  /** Milliseconds from the relay's death to the first failed result after it. */
  private long millisToFailureAfterDeath(DyingRelay relay) throws Exception {
    await().atMost(Duration.ofSeconds(10)).until(() -> !results.isEmpty());
    int answered = results.size();
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());
    long died = System.nanoTime();
    relay.die();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(2))
        .until(() -> results.size() > answered);
    long millis = (System.nanoTime() - died) / 1_000_000;
    assertThat(results.get(answered).success()).isFalse();
    return millis;
  }

  @Test
  void anHttpMemberThatDiesIsProbedAtOnceNotAtTheNextInterval() throws Exception {
    DyingRelay relay = relayTo(serve(r -> r.response().end("ok")));
    prober.track(KEY, "127.0.0.1", relay.port(), "/ok", 3_000, 500);
    assertThat(millisToFailureAfterDeath(relay))
        .as("the next probe was due up to 3 s later")
        .isLessThan(500);
  }

  @Test
  void aGrpcMemberThatDiesIsProbedAtOnceNotAtTheNextInterval() throws Exception {
    GrpcHealthServer grpc = GrpcHealthServer.plain();
    toClose.add(grpc);
    DyingRelay relay = relayTo(grpc.port());
    prober.track(KEY, "127.0.0.1", relay.port(), GRPC, 3_000, 500);
    assertThat(millisToFailureAfterDeath(relay))
        .as("the next probe was due up to 3 s later")
        .isLessThan(500);
  }

  @Test
  void aFrozenMemberStillWaitsForTheNextProbeAndItsTimeout() throws Exception {
    DyingRelay relay = relayTo(serve(r -> r.response().end("ok")));
    prober.track(KEY, "127.0.0.1", relay.port(), "/ok", 300, 100);
    await().atMost(Duration.ofSeconds(10)).until(() -> !results.isEmpty());
    int answered = results.size();
    relay.freeze();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> results.stream().skip(answered).anyMatch(r -> !r.success()));
    ProbeResult failed =
        results.stream().skip(answered).filter(r -> !r.success()).findFirst().get();
    assertThat(failed.error()).isEqualTo("timeout after 100 ms");
  }

  @Test
  void connectionCloseAnswersTriggerNoExtraProbes() throws Exception {
    assertOneProbePerInterval(serve(r -> r.response().putHeader("Connection", "close").end("ok")));
  }

  @Test
  void anHttp10MemberIsBelievedToCloseByDesignAfterThreeFalseAlarms() throws Exception {
    // An HTTP/1.0 server: answers, then closes, as such servers do without keep-alive.
    NetServer server =
        vertx
            .createNetServer()
            .connectHandler(
                s ->
                    s.handler(
                        b -> {
                          requests.incrementAndGet();
                          s.write(Buffer.buffer("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"))
                              .onComplete(v -> s.close());
                        }))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    toClose.add(() -> server.close().toCompletionStage().toCompletableFuture().get());
    // Vert.x's client does not tell an HTTP/1.0 answer from an HTTP/1.1 one, so its closes look
    // unannounced until the false alarms add up.
    assertProbedOnCloseThenBelieved(server.actualPort(), 300);
  }

  /**
   * Probes every 300 ms: results are an interval apart, none right after a close. (Were the closes
   * taken for deaths, the first three would each be followed by a probe within milliseconds, until
   * the member was believed to close by design.)
   */
  private void assertOneProbePerInterval(int port) {
    prober.track(KEY, "127.0.0.1", port, "/ok", 300, 200);
    await().atMost(Duration.ofSeconds(10)).until(() -> results.size() >= 6);

    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < 6; i++) {
      gaps.add(Duration.between(results.get(i - 1).at(), results.get(i).at()).toMillis());
    }
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());
    assertThat(gaps).as("ms between results").allSatisfy(g -> assertThat(g).isGreaterThan(200));
    assertThat(requests).as("one request per result").hasValueLessThanOrEqualTo(results.size() + 1);
  }

  @Test
  void anUntrackedMembersDeathTriggersNoProbe() throws Exception {
    DyingRelay relay = relayTo(serve(r -> r.response().end("ok")));
    prober.track(KEY, "127.0.0.1", relay.port(), "/ok", 3_000, 500);
    await().atMost(Duration.ofSeconds(10)).until(() -> !results.isEmpty());
    prober.untrack(KEY);
    await().atMost(Duration.ofSeconds(5)).until(() -> prober.stats().inFlight() == 0);
    int before = results.size();
    long started = prober.stats().started();
    relay.die();
    // Nothing may follow the death: no result and no probe started, all through 300 ms after it.
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(1))
        .until(() -> results.size() == before && prober.stats().started() == started);
  }

  @Test
  void aMemberClosingKeptAliveConnectionsByDesignIsBelievedAfterThreeFalseAlarms()
      throws Exception {
    // Answers keep-alive, then closes the connection shortly after (a short idle timeout).
    int port =
        serve(
            r -> {
              r.response().end("ok");
              var c = r.connection();
              vertx.setTimer(20, id -> c.close());
            });
    assertProbedOnCloseThenBelieved(port, 500);
  }

  /**
   * Scheduled probes are an interval apart; a probe a close triggered follows the previous answer
   * within a few tens of milliseconds: that happens for the first three closes only.
   */
  private void assertProbedOnCloseThenBelieved(int port, long interval) {
    prober.track(KEY, "127.0.0.1", port, "/ok", interval, 200);
    await().atMost(Duration.ofSeconds(15)).until(() -> results.size() >= 10);
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < 10; i++) {
      gaps.add(Duration.between(results.get(i - 1).at(), results.get(i).at()).toMillis());
    }
    assertThat(gaps.stream().filter(g -> g < interval / 2).count())
        .as("probes on a close, then believed: gaps %s ms", gaps)
        .isEqualTo(PeerCloseWatch.FALSE_ALARMS_BEFORE_BY_DESIGN);
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());
  }
}
