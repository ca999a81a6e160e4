package dev.replicapool.dataplane.tracing;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The data plane as a trace participant: a SERVER span per request, a CLIENT span per try, the
 * traceparent each try sends. Spans are exported by the SDK's batch processor on its own thread
 * from a bounded queue, so a slow or absent receiver drops spans and never holds a request. Made
 * only when tracing is on; when off there is no instance and the forwarding path does nothing.
 */
public final class Tracing implements AutoCloseable {
  private final SdkTracerProvider provider;
  private final Tracer tracer;

  /** Tests pass a processor that exports each span as it ends: nothing to flush, nothing racing. */
  Tracing(TracingConfig config, SpanProcessor processor) {
    this.provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(Resource.builder().put("service.name", "replicapool-dataplane").build()))
            // Parent-based: a sampled incoming traceparent is recorded whatever the ratio.
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(config.sampling())))
            .addSpanProcessor(processor)
            .build();
    this.tracer = provider.get("dev.replicapool.dataplane");
  }

  /** Tracing as configured, or null when it is off. */
  public static Tracing start(TracingConfig config) {
    if (!config.enabled()) {
      return null;
    }
    // The JDK HttpClient sender is on the class path (not OkHttp): OTLP/HTTP protobuf.
    SpanExporter otlp = OtlpHttpSpanExporter.builder().setEndpoint(config.tracesUrl()).build();
    return new Tracing(
        config,
        BatchSpanProcessor.builder(otlp)
            .setMaxQueueSize(config.queue())
            .setScheduleDelay(200, TimeUnit.MILLISECONDS)
            .build());
  }

  /**
   * The request's SERVER span, child of the client's span when its traceparent is valid.
   *
   * @param tracestate the incoming tracestate, kept on the span so tries send it on unchanged
   */
  public Span server(
      TraceParent parent,
      String tracestate,
      String method,
      String scheme,
      String path,
      String host) {
    return server(parent, tracestate, method, scheme, path, host, now());
  }

  /** The request's SERVER span, begun at {@code startEpochNanos}. */
  public Span server(
      TraceParent parent,
      String tracestate,
      String method,
      String scheme,
      String path,
      String host,
      long startEpochNanos) {
    Context ctx = Context.root();
    if (parent != null) {
      SpanContext remote =
          SpanContext.createFromRemoteParent(
              parent.traceId(),
              parent.parentId(),
              parent.sampled() ? TraceFlags.getSampled() : TraceFlags.getDefault(),
              TraceStates.parse(tracestate));
      ctx = ctx.with(Span.wrap(remote));
    }
    return tracer
        .spanBuilder(method)
        .setSpanKind(SpanKind.SERVER)
        .setParent(ctx)
        .setAttribute("http.request.method", method)
        .setAttribute("url.scheme", scheme)
        .setAttribute("url.path", TryAttributes.pathOnly(path))
        .setAttribute("server.address", host == null ? "" : host)
        .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS)
        .startSpan();
  }

  /** A CLIENT span for one try, child of the request's span; end it with {@link #endTry}. */
  public Span startTry(Span server, TryAttributes.Try t) {
    return startTry(server, t, now());
  }

  /** A CLIENT span for one try, begun at {@code startEpochNanos}. */
  public Span startTry(Span server, TryAttributes.Try t, long startEpochNanos) {
    var b =
        tracer
            .spanBuilder(t.method())
            .setSpanKind(SpanKind.CLIENT)
            .setParent(Context.root().with(server))
            .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS);
    if (server.isRecording()) { // else neither is this one (parent-based): no attributes to make
      b.setAllAttributes(attributes(TryAttributes.of(t)));
    }
    return b.startSpan();
  }

  /** Now, in nanoseconds since the epoch, as spans are stamped. */
  public long now() {
    return Clock.getDefault().now();
  }

  /** Ends a try's span with what became of it. */
  public static void endTry(Span span, TryAttributes.Try t) {
    endTry(span, t, Clock.getDefault().now());
  }

  /** Ends a try's span at {@code endEpochNanos} with what became of it. */
  public static void endTry(Span span, TryAttributes.Try t, long endEpochNanos) {
    if (!span.isRecording()) {
      span.end(endEpochNanos, TimeUnit.NANOSECONDS); // not sampled: nothing to say
      return;
    }
    span.setAllAttributes(attributes(TryAttributes.of(t)));
    if (TryAttributes.errorType(t.outcome(), t.status()) != null) {
      span.setStatus(StatusCode.ERROR);
    }
    span.end(endEpochNanos, TimeUnit.NANOSECONDS);
  }

  /** Ends the request's span with the status the client got (a 5xx is a server span's error). */
  public static void endServer(Span span, int status, long endEpochNanos) {
    span.setAttribute("http.response.status_code", (long) status);
    if (status >= 500) {
      span.setAttribute("error.type", Integer.toString(status));
      span.setStatus(StatusCode.ERROR);
    }
    span.end(endEpochNanos, TimeUnit.NANOSECONDS);
  }

  /** The traceparent the member gets for this try: its parent-id is the try's span id. */
  public static String traceparent(Span span) {
    SpanContext c = span.getSpanContext();
    return TraceParent.format(c.getTraceId(), c.getSpanId(), c.isSampled());
  }

  /** The tracestate the member gets: the incoming one, unchanged (null when there was none). */
  public static String tracestate(Span span) {
    TraceState s = span.getSpanContext().getTraceState();
    return s.isEmpty() ? null : TraceStates.format(s);
  }

  private static Attributes attributes(Map<String, Object> values) {
    AttributesBuilder b = Attributes.builder();
    values.forEach(
        (k, v) -> {
          if (v instanceof Long l) {
            b.put(k, l);
          } else {
            b.put(k, String.valueOf(v));
          }
        });
    return b.build();
  }

  /** Exports what is queued now (tests: the in-memory exporter forgets its spans at close). */
  void flush() {
    provider.forceFlush().join(5, TimeUnit.SECONDS);
  }

  /** Exports what is queued, then stops. */
  @Override
  public void close() {
    provider.shutdown().join(5, TimeUnit.SECONDS);
  }
}
