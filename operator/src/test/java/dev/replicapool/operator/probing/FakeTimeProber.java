package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real {@link Prober} (real checkers, real connections) on {@link FakeTime} that stands still
 * while a probe runs: schedules and timeouts move only when the test says, so a loaded machine can
 * neither time a local probe out nor stretch its pace.
 */
final class FakeTimeProber {
  final FakeTime time = new FakeTime();
  final Prober prober;
  private final Context loop;

  /** Made on an event loop of its own: a prober keeps the context it is made on. */
  FakeTimeProber(Vertx vertx, ProbeListener listener, Prober.Options options) throws Exception {
    loop = vertx.getOrCreateContext();
    CompletableFuture<Prober> made = new CompletableFuture<>();
    loop.runOnContext(v -> made.complete(new Prober(vertx, listener, options, time, time)));
    prober = made.get(10, TimeUnit.SECONDS);
  }

  /**
   * Moves fake time on, one wheel tick at a time and only while no probe is in flight, until {@code
   * done}: each probe's real I/O happens while fake time stands still.
   */
  void advanceUntil(BooleanSupplier done) throws Exception {
    long step = prober.options().tickMillis();
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("still not done").isLessThan(giveUp);
      if (prober.stats().inFlight() > 0) {
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> prober.stats().inFlight() == 0);
      }
      CompletableFuture<Void> stepped = new CompletableFuture<>();
      loop.runOnContext(
          v -> {
            time.advance(step);
            stepped.complete(null);
          });
      stepped.get(10, TimeUnit.SECONDS);
    }
  }
}
