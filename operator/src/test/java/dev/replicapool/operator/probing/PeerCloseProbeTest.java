package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Probes on a connection the member closes: a death at once, a close by design not for long. */
class PeerCloseProbeTest {
  private Vertx vertx;
  private HttpServer server;
  private Prober prober;
  private final AtomicInteger requests = new AtomicInteger();
  private final List<ProbeResult> results = new CopyOnWriteArrayList<>();
  private static final MemberKey KEY = new MemberKey("ns/pool", "m");

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    prober = new Prober(vertx, results::add);
  }

  @AfterEach
  void stop() throws Exception {
    prober.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int serve(Consumer<HttpServerRequest> handler) throws Exception {
    server =
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
    return server.actualPort();
  }

  @Test
  void aMemberThatDiesIsProbedAtOnceNotAtTheNextInterval() throws Exception {
    int port = serve(r -> r.response().end("ok"));
    prober.track(KEY, "127.0.0.1", port, "/ok", 2_000, 500);
    await().atMost(Duration.ofSeconds(10)).until(() -> results.size() >= 1);
    int answered = results.size();
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());

    // Closing the server closes its connections and stops listening, as a dying process does.
    long closed = System.nanoTime();
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> results.size() > answered);
    long millis = (System.nanoTime() - closed) / 1_000_000;

    assertThat(results.get(answered).success()).isFalse();
    assertThat(millis).as("the next probe was due up to 2 s later").isLessThan(500);
  }

  @Test
  void connectionCloseAnswersTriggerNoExtraProbes() throws Exception {
    int port = serve(r -> r.response().putHeader("Connection", "close").end("ok"));
    prober.track(KEY, "127.0.0.1", port, "/ok", 300, 200);
    await().atMost(Duration.ofSeconds(2)).until(() -> results.size() >= 1);
    int before = requests.get();
    long from = System.nanoTime();
    await().pollDelay(Duration.ofMillis(1_800)).atMost(Duration.ofSeconds(3)).until(() -> true);
    long window = (System.nanoTime() - from) / 1_000_000;

    int probes = requests.get() - before;
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());
    assertThat(probes)
        .as("one probe per 300 ms over %d ms", window)
        .isLessThanOrEqualTo((int) (window / 300) + 1);
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
    prober.track(KEY, "127.0.0.1", port, "/ok", 500, 200);
    await().atMost(Duration.ofSeconds(10)).until(() -> results.size() >= 10);

    // Scheduled probes are 500 ms apart; a probe a close triggered follows the previous answer
    // within a few tens of milliseconds (the server closes 20 ms after answering).
    List<Long> gaps = new java.util.ArrayList<>();
    for (int i = 1; i < 10; i++) {
      gaps.add(java.time.Duration.between(results.get(i - 1).at(), results.get(i).at()).toMillis());
    }
    assertThat(gaps.stream().filter(g -> g < 200).count())
        .as("probes on a close, then believed: gaps %s ms", gaps)
        .isEqualTo(PeerCloseWatch.FALSE_ALARMS_BEFORE_BY_DESIGN);
    assertThat(results).allSatisfy(r -> assertThat(r.success()).isTrue());
  }
}
