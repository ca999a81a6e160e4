package dev.replicapool.dataplane.accesslog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;

/** How a record becomes one line (no newline): JSON lines, or a short text line. */
public enum AccessLogFormat {
  /** One JSON object per line; field names in docs/OBSERVABILITY.md. */
  JSON {
    @Override
    String line(AccessRecord r, boolean query) {
      StringWriter w = new StringWriter(384);
      try (JsonGenerator g = JSON_FACTORY.createGenerator(w)) {
        g.writeStartObject();
        g.writeStringField("time", Instant.ofEpochMilli(r.startMillis).toString());
        g.writeStringField("client", r.client);
        g.writeStringField("protocol", r.protocol);
        g.writeStringField("method", r.method);
        g.writeStringField("authority", r.authority);
        g.writeStringField("path", path(r.path, query));
        g.writeNumberField("status", r.status);
        if (r.grpcStatus == null) {
          g.writeNullField("grpcStatus");
        } else {
          g.writeStringField("grpcStatus", r.grpcStatus);
        }
        g.writeNumberField("bytesIn", r.bytesIn);
        g.writeNumberField("bytesOut", r.bytesOut);
        g.writeNumberField("durationMs", millis(r.totalNanos));
        g.writeNumberField("ttfbMs", r.firstByteNanos < 0 ? -1 : millis(r.firstByteNanos));
        g.writeStringField("pool", r.pool);
        g.writeArrayFieldStart("tries");
        for (AccessRecord.Try t : r.tries) {
          g.writeStartObject();
          g.writeStringField("member", t.member());
          g.writeStringField("outcome", t.outcome());
          g.writeNumberField("ms", millis(t.nanos()));
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeNumberField("retries", r.retries);
        g.writeNumberField("hedges", r.hedges);
        g.writeBooleanField("local", r.local);
        g.writeStringField("flags", AccessFlag.join(r.flags));
        g.writeStringField("traceId", r.traceId);
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return w.toString();
    }
  },
  /**
   * Envoy's default order, shortened: {@code [time] "METHOD authority/path PROTOCOL" status flags
   * bytesIn bytesOut durationMs ttfbMs client pool tries retries hedges trace}, tries as {@code
   * member:outcome:ms} joined by commas, "-" for what is missing; a gRPC call's line ends with
   * {@code grpc=STATUS}.
   */
  TEXT {
    @Override
    String line(AccessRecord r, boolean query) {
      StringBuilder b = new StringBuilder(200);
      b.append('[').append(Instant.ofEpochMilli(r.startMillis)).append("] \"");
      b.append(dash(r.method)).append(' ').append(dash(r.authority));
      b.append(path(r.path, query)).append(' ').append(dash(r.protocol)).append("\" ");
      b.append(r.status).append(' ').append(AccessFlag.join(r.flags)).append(' ');
      b.append(r.bytesIn).append(' ').append(r.bytesOut).append(' ');
      b.append(millis(r.totalNanos)).append(' ');
      b.append(r.firstByteNanos < 0 ? "-" : String.valueOf(millis(r.firstByteNanos))).append(' ');
      b.append(dash(r.client)).append(' ').append(dash(r.pool)).append(' ');
      if (r.tries.isEmpty()) {
        b.append('-');
      }
      for (int i = 0; i < r.tries.size(); i++) {
        AccessRecord.Try t = r.tries.get(i);
        b.append(i == 0 ? "" : ",").append(t.member()).append(':').append(t.outcome());
        b.append(':').append(millis(t.nanos()));
      }
      b.append(" retries=").append(r.retries).append(" hedges=").append(r.hedges);
      b.append(' ').append(dash(r.traceId));
      if (r.grpcStatus != null) {
        b.append(" grpc=").append(r.grpcStatus);
      }
      return b.toString();
    }
  };

  private static final JsonFactory JSON_FACTORY = new JsonFactory();

  abstract String line(AccessRecord r, boolean query);

  /** The path as logged: without its query unless {@code query}. */
  static String path(String path, boolean query) {
    if (path == null) {
      return "-";
    }
    int q = path.indexOf('?');
    return query || q < 0 ? path : path.substring(0, q);
  }

  private static String dash(String s) {
    return s == null || s.isEmpty() ? "-" : s;
  }

  /** Milliseconds with microsecond precision kept to three decimals. */
  private static double millis(long nanos) {
    return Math.round(nanos / 1000.0) / 1000.0;
  }
}
