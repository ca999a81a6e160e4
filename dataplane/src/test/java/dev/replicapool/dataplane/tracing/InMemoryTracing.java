package dev.replicapool.dataplane.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/** Tracing whose spans end in the test's own exporter, for tests outside this package. */
public final class InMemoryTracing {
  private InMemoryTracing() {}

  /** Every request sampled (unless its parent says otherwise), each span exported as it ends. */
  public static Tracing to(InMemorySpanExporter exporter) {
    return new Tracing(new TracingConfig(null, 0.0, 64), SimpleSpanProcessor.create(exporter));
  }
}
