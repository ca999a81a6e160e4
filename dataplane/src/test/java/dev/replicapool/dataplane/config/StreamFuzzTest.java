package dev.replicapool.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.controlplane.WireCodec;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing (Jazzer) of what a data plane reads from the control-plane stream: a
 * frame is decoded or refused as malformed, never anything else; a snapshot in it is refused with a
 * reason (the NACK) or made into a pool, never anything else. Inputs (seeds, past findings) in
 * {@code src/test/resources/dev/replicapool/dataplane/config/StreamFuzzTestInputs/snapshotFrame/}.
 */
class StreamFuzzTest {
  static Vertx vertx;
  static PoolRuntimeFactory pools;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    pools = new PoolRuntimeFactory(vertx, System::nanoTime, () -> new Random(1), pool -> null);
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @FuzzTest(maxDuration = "20s")
  void snapshotFrame(String text) {
    StreamMessage m;
    try {
      m = WireCodec.decode(text);
    } catch (WireCodec.MalformedFrameException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertThat(m.type()).isNotNull();
    if (m.snapshot() == null) {
      return;
    }
    List<String> hosts;
    try {
      hosts = SnapshotValidator.check(m.snapshot(), null, Set.of(8080));
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertThat(hosts).doesNotHaveDuplicates();
    try {
      assertThat(pools.build(m.snapshot(), hosts, null)).isNotNull();
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
