package dev.replicapool.operator.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The operator's tracer: its reconciles and pushes as spans, exported by OTLP/HTTP from the SDK's
 * batch processor (its own thread, a bounded queue: a slow receiver loses spans, never holds a
 * reconcile). Off (no endpoint), the tracer is OpenTelemetry's no-op one, so the code that makes
 * spans is the same either way and costs nothing.
 */
public final class OperatorTracing implements AutoCloseable {
  public static final OperatorTracing OFF = new OperatorTracing(null);

  private final SdkTracerProvider provider;
  private final Tracer tracer;

  private OperatorTracing(SdkTracerProvider provider) {
    this.provider = provider;
    this.tracer =
        provider == null
            ? OpenTelemetry.noop().getTracer("dev.replicapool.operator")
            : provider.get("dev.replicapool.operator");
  }

  /** Spans to {@code otlpEndpoint} (its /v1/traces); {@code sampling}: the share of traces kept. */
  public static OperatorTracing start(URI otlpEndpoint, double sampling) {
    if (otlpEndpoint == null) {
      return OFF;
    }
    String base = otlpEndpoint.toString().replaceAll("/+$", "");
    SpanExporter otlp = OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").build();
    return exportingTo(
        BatchSpanProcessor.builder(otlp).setScheduleDelay(200, TimeUnit.MILLISECONDS).build(),
        sampling);
  }

  /**
   * Spans through {@code processor}. Tests pass one that exports each span as it ends: the batch
   * processor's flush can report done while a span ended just before it is still queued.
   */
  public static OperatorTracing exportingTo(SpanProcessor processor, double sampling) {
    return new OperatorTracing(
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(Resource.builder().put("service.name", "replicapool-operator").build()))
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(sampling)))
            .addSpanProcessor(processor)
            .build());
  }

  public Tracer tracer() {
    return tracer;
  }

  /** Exports what is queued now. */
  public void flush() {
    if (provider != null) {
      provider.forceFlush().join(5, TimeUnit.SECONDS);
    }
  }

  /** Exports what is queued, then stops. */
  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(5, TimeUnit.SECONDS);
    }
  }
}
