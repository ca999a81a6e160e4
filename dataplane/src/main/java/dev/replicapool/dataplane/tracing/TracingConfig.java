package dev.replicapool.dataplane.tracing;

import java.net.URI;

/**
 * Whether and how the data plane takes part in traces. Off (no endpoint) by default: then
 * traceparent and tracestate pass through untouched and nothing is made per request.
 *
 * @param otlpEndpoint the OTLP/HTTP receiver's base URI (spans go to /v1/traces), null when off
 * @param sampling the share of new traces (no sampled parent) that are recorded, 0 to 1; a parent's
 *     sampled flag is honoured whatever this is (parent-based sampling)
 * @param queue spans waiting for export; more are dropped, a request never waits
 */
public record TracingConfig(URI otlpEndpoint, double sampling, int queue) {
  public static final int DEFAULT_QUEUE = 2048;
  public static final TracingConfig OFF = new TracingConfig(null, 1.0, DEFAULT_QUEUE);

  public TracingConfig {
    if (sampling < 0 || sampling > 1 || Double.isNaN(sampling)) {
      throw new IllegalArgumentException("sampling must be between 0 and 1: " + sampling);
    }
    if (queue < 1) {
      throw new IllegalArgumentException("queue must be at least 1: " + queue);
    }
    if (otlpEndpoint != null
        && !"http".equals(otlpEndpoint.getScheme())
        && !"https".equals(otlpEndpoint.getScheme())) {
      throw new IllegalArgumentException("the OTLP endpoint must be http:// or https://");
    }
  }

  public boolean enabled() {
    return otlpEndpoint != null;
  }

  /** Where OTLP/HTTP takes spans: the base URI with /v1/traces, as the OTLP specification says. */
  public String tracesUrl() {
    String base = otlpEndpoint.toString();
    return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/traces";
  }
}
