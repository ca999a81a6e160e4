package dev.replicapool.dataplane.tracing;

import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.TraceStateBuilder;

/** W3C tracestate to and from the SDK's TraceState; an unparsable list is dropped as a whole. */
final class TraceStates {
  private TraceStates() {}

  static TraceState parse(String header) {
    if (header == null || header.isBlank()) {
      return TraceState.getDefault();
    }
    TraceStateBuilder b = TraceState.builder();
    String[] members = header.split(",");
    // The builder puts the last added first, so add from the end to keep the order.
    for (int i = members.length - 1; i >= 0; i--) {
      String m = members[i].trim();
      if (m.isEmpty()) {
        continue;
      }
      int eq = m.indexOf('=');
      if (eq <= 0) {
        return TraceState.getDefault();
      }
      b.put(m.substring(0, eq), m.substring(eq + 1));
    }
    return b.build();
  }

  static String format(TraceState s) {
    StringBuilder out = new StringBuilder();
    s.forEach(
        (k, v) -> {
          if (out.length() > 0) {
            out.append(',');
          }
          out.append(k).append('=').append(v);
        });
    return out.toString();
  }
}
