package dev.replicapool.operator.push;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.Convergence;
import dev.replicapool.operator.tracing.OperatorTracing;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A push span's life, event by event: sent, then converged, superseded or removed. */
class PushSpansTest {
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final OperatorTracing tracing =
      OperatorTracing.exportingTo(SimpleSpanProcessor.create(exporter), 1.0);
  final PushSpans spans = new PushSpans(tracing.tracer());

  @AfterEach
  void close() {
    tracing.close();
  }

  @Test
  void aPushEndsWhenEveryDataPlaneAppliedItsVersionTimedFromTheChangeBehindIt() {
    long change = System.nanoTime() - 40_000_000L; // the change was seen 40 ms ago
    spans.sent(snapshot("ns/a", 3), Set.of("edge", "default"), change);
    assertThat(finished()).isEmpty();
    spans.converged(new Convergence("ns/a", 3, 41_000_000L));
    SpanData push = finished().get(0);
    assertThat(push.getName()).isEqualTo("push");
    assertThat(push.getAttributes().get(PushSpans.OUTCOME)).isEqualTo("converged");
    assertThat(push.getAttributes().get(PushSpans.VERSION)).isEqualTo(3L);
    assertThat(push.getAttributes().get(PushSpans.MEMBERS)).isEqualTo(1L);
    assertThat(push.getAttributes().get(PushSpans.GROUPS)).containsExactly("default", "edge");
    assertThat(push.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(push.getEndEpochNanos() - push.getStartEpochNanos())
        .as("from the change, not from the send")
        .isGreaterThanOrEqualTo(40_000_000L);
  }

  @Test
  void aVersionReplacedBeforeItConvergedIsSupersededAndAnOldConvergenceEndsNothingNewer() {
    spans.sent(snapshot("ns/a", 3), Set.of("default"), System.nanoTime());
    spans.sent(snapshot("ns/a", 4), Set.of("default"), System.nanoTime());
    assertThat(finished())
        .singleElement()
        .satisfies(
            s -> assertThat(s.getAttributes().get(PushSpans.OUTCOME)).isEqualTo("superseded"));
    spans.converged(new Convergence("ns/a", 3, 1));
    assertThat(finished()).as("version 4 still out").isEmpty();
    spans.converged(new Convergence("ns/b", 4, 1));
    assertThat(finished()).as("another pool's convergence").isEmpty();
    spans.removed("ns/a");
    assertThat(finished())
        .singleElement()
        .satisfies(s -> assertThat(s.getAttributes().get(PushSpans.OUTCOME)).isEqualTo("removed"));
    spans.removed("ns/a");
    spans.converged(new Convergence("ns/a", 4, 1));
    assertThat(finished()).as("ended once").isEmpty();
  }

  List<SpanData> finished() {
    tracing.flush();
    List<SpanData> s = exporter.getFinishedSpanItems();
    exporter.reset();
    return s;
  }

  static PoolSnapshot snapshot(String pool, long version) {
    return PoolSnapshotBuilder.builder()
        .pool(pool)
        .version(version)
        .policy(RoutingPolicy.RoundRobin)
        .hosts(List.of())
        .members(List.of(new MemberSnapshot("10.0.0.1", 80, 1.0, MemberState.Healthy)))
        .build();
  }
}
