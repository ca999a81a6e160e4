package dev.replicapool.dataplane.accesslog;

import static dev.replicapool.dataplane.accesslog.AccessLogFormatTest.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.replicapool.dataplane.admin.DataPlaneMetrics;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The writer thread and its bounded queue, with a sink the test holds up. */
class AccessLogTest {
  /** Lines as written; {@code write} waits for {@code release} once it has been entered. */
  static final class HeldSink implements AccessLog.Sink {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void write(String line) throws java.io.IOException {
      entered.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      lines.add(line);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  static final AccessLog.Options OPTIONS =
      new AccessLog.Options(AccessLogFormat.JSON, false, false, 2);

  @Test
  void aFullQueueDropsAndCountsInsteadOfBlocking() throws Exception {
    HeldSink sink = new HeldSink();
    AccessLog log = new AccessLog(OPTIONS, sink, () -> 0L);
    DataPlaneMetrics metrics = new DataPlaneMetrics(() -> RoutingTable.EMPTY, System::nanoTime);
    metrics.accessLogDropped(log::dropped);
    try {
      end(log, 0);
      assertThat(sink.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the writer holds line 0
      // Ten more while the writer is held: two fit the queue, eight are dropped, none waits.
      assertTimeoutPreemptively(
          Duration.ofSeconds(2),
          () -> {
            for (int i = 1; i <= 10; i++) {
              end(log, i);
            }
          });
      assertThat(log.dropped()).isEqualTo(8);
      assertThat(metrics.registry().scrape()).contains("replicapool_access_log_dropped_total 8.0");
      sink.release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> sink.lines.size() == 3);
      assertThat(sink.lines).allMatch(l -> l.contains("\"pool\":\"p\""));
      assertThat(sink.lines.get(2)).contains("\"path\":\"/2\"");
    } finally {
      sink.release.countDown();
      log.close();
      metrics.close();
    }
  }

  @Test
  void whoIsLoggedFollowsThePoolsSpecAndTheFlag() {
    AccessLog log = new AccessLog(OPTIONS, new HeldSink(), () -> 0L);
    AccessLog all =
        new AccessLog(
            new AccessLog.Options(AccessLogFormat.TEXT, false, true, 2), new HeldSink(), () -> 0L);
    try {
      assertThat(AccessLog.OFF.begin("p", spec(true, 1, false), ProxyObserver.NONE, 0)).isNull();
      assertThat(log.begin("p", null, ProxyObserver.NONE, 0)).isNull();
      assertThat(log.begin("p", spec(false, 1, false), ProxyObserver.NONE, 0)).isNull();
      assertThat(log.begin("p", spec(true, 1, false), ProxyObserver.NONE, 0)).isNotNull();
      assertThat(log.begin("p", spec(true, 0, false), ProxyObserver.NONE, 0)).isNull();
      assertThat(all.begin("p", null, ProxyObserver.NONE, 0)).isNotNull();
      assertThat(all.begin(null, null, ProxyObserver.NONE, 0)).isNotNull(); // unrouted
      assertThat(all.begin("p", spec(false, 0, false), ProxyObserver.NONE, 0)).isNull();
    } finally {
      log.close();
      all.close();
    }
  }

  private static void end(AccessLog log, int i) {
    AccessRecord r = log.begin("p", spec(true, 1, false), ProxyObserver.NONE, 0);
    r.request("127.0.0.1", "HTTP/1.1", "GET", "h", "/" + i);
    log.end(r, 200, 1000);
  }
}
