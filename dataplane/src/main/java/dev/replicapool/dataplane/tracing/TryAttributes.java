package dev.replicapool.dataplane.tracing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The OpenTelemetry HTTP client span attributes of one try to a member, from what the data plane
 * knows of it: semantic-convention names, so any tracing backend shows them as HTTP spans. Pure (no
 * I/O, no clock) so the mapping is tested on its own.
 */
public final class TryAttributes {
  private TryAttributes() {}

  /**
   * One try as the forwarding path reports it.
   *
   * @param index 0 for the first try, 1 for the first retry or hedge, and so on
   * @param outcome how it ended as the metrics name it: "2xx".."5xx", "timeout", "reset",
   *     "refused", "unprocessed", "cancelled", "aborted"; null while it is out
   * @param status the member's status, 0 when it gave none
   */
  public record Try(
      String method,
      String scheme,
      String path,
      String memberHost,
      int memberPort,
      int index,
      String outcome,
      int status) {}

  /** The span's attributes, in a stable order. */
  public static Map<String, Object> of(Try t) {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("http.request.method", knownMethod(t.method()));
    if (!t.method().equals(a.get("http.request.method"))) {
      a.put("http.request.method_original", t.method());
    }
    a.put("url.scheme", t.scheme());
    a.put("url.path", pathOnly(t.path()));
    a.put("server.address", t.memberHost());
    a.put("server.port", (long) t.memberPort());
    if (t.status() > 0) {
      a.put("http.response.status_code", (long) t.status());
    }
    if (t.index() > 0) {
      a.put("http.request.resend_count", (long) t.index());
    }
    String error = errorType(t.outcome(), t.status());
    if (error != null) {
      a.put("error.type", error);
    }
    return a;
  }

  /**
   * The semantic conventions' error.type: for a client span any status from 400 up is an error,
   * named by its code; a try without an answer is named by how it failed; null otherwise.
   */
  public static String errorType(String outcome, int status) {
    if (status >= 400) {
      return Integer.toString(status);
    }
    if (outcome == null) {
      return null; // not over yet
    }
    return switch (outcome) {
      case "1xx", "2xx", "3xx", "4xx", "5xx" -> null;
      case "connect_failure",
          "timeout",
          "reset",
          "refused",
          "unprocessed",
          "cancelled",
          "aborted" ->
          outcome;
      default -> "_OTHER";
    };
  }

  // The conventions' known methods; anything else is reported as _OTHER with the original beside.
  private static String knownMethod(String m) {
    return switch (m) {
      case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH" -> m;
      default -> "_OTHER";
    };
  }

  // url.path carries no query string: a query may hold secrets and is not part of the path.
  static String pathOnly(String path) {
    int q = path.indexOf('?');
    return q < 0 ? path : path.substring(0, q);
  }
}
