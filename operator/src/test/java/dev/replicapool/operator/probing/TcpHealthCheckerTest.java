package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The TCP checker against a real listener and a port nothing listens on. */
class TcpHealthCheckerTest {
  static Vertx vertx;
  static Checks checks;
  static TcpHealthChecker checker;
  static final ProbeSpec TCP =
      new ProbeSpec(HealthCheckType.TCP, null, null, null, null, null, null, null);

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    checks = new Checks(vertx);
    checker = new TcpHealthChecker(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    checker.close().await();
    checks.close();
    vertx.close().await();
  }

  @Test
  void aListenerPassesAndItsConnectionIsClosed() throws Exception {
    AtomicInteger closed = new AtomicInteger();
    NetServer server =
        vertx.createNetServer().connectHandler(s -> s.closeHandler(v -> closed.incrementAndGet()));
    server.listen(0, "127.0.0.1").await();
    try {
      CheckOutcome o = checks.run(checker, server.actualPort(), TCP);
      assertThat(o.success()).isTrue();
      assertThat(o.connectionKept()).isFalse();
      org.awaitility.Awaitility.await().until(() -> closed.get() == 1);
    } finally {
      server.close().await();
    }
  }

  @Test
  void aClosedPortFails() throws Exception {
    CheckOutcome o = checks.run(checker, ReplicaPortHolder.unusedPort(), TCP);
    assertThat(o.success()).isFalse();
    assertThat(o.error()).isEqualTo("connection refused");
    assertThat(o.cause()).isEqualTo(ProbeCause.REFUSED);
  }
}
