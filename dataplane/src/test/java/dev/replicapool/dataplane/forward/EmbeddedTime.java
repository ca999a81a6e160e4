package dev.replicapool.dataplane.forward;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.TestRouters;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the forwarding room's unit tests share: an embedded event loop whose time the test moves,
 * the data plane's clock on the same ticker, metrics that write down what they are told, and a
 * round-robin pool "a/p" (host p.example) on that clock.
 */
final class EmbeddedTime {
  static final long MS = 1_000_000L;

  final MockTicker ticker = Ticker.newMockTicker();
  final EmbeddedChannel channel = EmbeddedChannel.builder().ticker(ticker).build();
  final LongSupplier clock = ticker::nanoTime;

  /** What the metrics were told (retries, budget, queue, silent clients), in order. */
  final List<String> counted = new ArrayList<>();

  /** The statuses requests' records ended with, in order (not in {@link #counted}). */
  final List<Integer> responses = new ArrayList<>();

  final ProxyObserver observer =
      new ProxyObserver() {
        @Override
        public void retry(String pool, String reason) {
          counted.add("retry " + reason);
        }

        @Override
        public void budgetExhausted(String pool) {
          counted.add("budget exhausted");
        }

        @Override
        public void queue(String pool, String outcome) {
          counted.add("queue " + outcome);
        }

        @Override
        public void clientStalled(String pool, String protocol, String side) {
          counted.add("client stalled " + protocol + " " + side);
        }

        @Override
        public void response(String pool, int status, long nanos) {
          responses.add(status);
        }
      };

  /** Moves the clock and the event loop's time on, and runs what fell due. */
  void advanceMillis(long ms) {
    ticker.advance(ms, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
  }

  /** Pool "a/p" of {@code members} round-robin members (10.0.0.1:8080, ...) under {@code rp}. */
  PoolRuntime pool(int members, RetryPolicy retry, RequestPolicy rp) {
    return new PoolRuntime(
        PoolSnapshotBuilder.builder()
            .pool("a/p")
            .version(1)
            .policy(RoutingPolicy.RoundRobin)
            .hosts(List.of("p.example"))
            .members(List.of())
            .build(),
        TestRouters.roundRobin(members, clock),
        List.of("p.example"),
        null,
        null,
        retry,
        null,
        rp);
  }
}
