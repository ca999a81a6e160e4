package dev.replicapool.dataplane.proxy;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.List;
import java.util.Locale;

/**
 * What RFC 9112 asks a server to refuse in an HTTP/1.x request, checked before the request is
 * routed, where Netty's decoder lets it through:
 *
 * <ul>
 *   <li>a Transfer-Encoding other than exactly {@code chunked}: 501 for codings the proxy does not
 *       know, 400 when chunked is not alone (the body length cannot be determined; 6.1);
 *   <li>a request-target with control characters or spaces (NUL included; 3.2);
 *   <li>HTTP/1.1 without Host, with more than one Host, or with a Host that is not host[:port]
 *       (3.2: "MUST respond with 400");
 *   <li>an absolute-form target whose authority differs from Host: the proxy routes by Host, so the
 *       two must not disagree (3.2.2);
 *   <li>CONNECT: the data plane is not a forward proxy (405).
 * </ul>
 *
 * Netty removes Content-Length when Transfer-Encoding is present, so a request with both cannot be
 * told from a plain chunked one; {@link #mustClose} therefore closes the connection after every
 * chunked HTTP/1.x request, which RFC 9112 6.1 requires for the conflicting case.
 */
final class RequestChecks {
  private RequestChecks() {}

  /** A refusal: status and a short reason for the body. */
  record Refusal(int status, String message) {}

  static Refusal check(HttpServerRequest req) {
    if (req.version() == HttpVersion.HTTP_2) {
      return null; // framing and :authority are HTTP/2's own
    }
    if (req.method() == HttpMethod.CONNECT) {
      return new Refusal(405, "CONNECT is not supported: this is a reverse proxy");
    }
    List<String> te = req.headers().getAll("transfer-encoding");
    if (!te.isEmpty()) {
      String codings = String.join(",", te).toLowerCase(Locale.ROOT).replace(" ", "");
      if (!codings.equals("chunked")) {
        boolean chunkedSomewhere = List.of(codings.split(",")).contains("chunked");
        return chunkedSomewhere
            ? new Refusal(400, "transfer-encoding must be chunked alone")
            : new Refusal(501, "transfer-encoding not supported");
      }
    }
    String uri = req.uri();
    for (int i = 0; i < uri.length(); i++) {
      char c = uri.charAt(i);
      if (c <= 0x20 || c == 0x7f) {
        return new Refusal(400, "invalid character in the request target");
      }
    }
    List<String> hosts = req.headers().getAll("host");
    if (req.version() == HttpVersion.HTTP_1_1 && hosts.isEmpty()) {
      return new Refusal(400, "missing Host header");
    }
    if (hosts.size() > 1) {
      return new Refusal(400, "more than one Host header");
    }
    if (!hosts.isEmpty()) {
      String host = hosts.get(0).strip();
      if (host.isEmpty() || host.contains("@") || req.authority() == null) {
        return new Refusal(400, "invalid Host header");
      }
      String target = absoluteFormAuthority(uri);
      if (target != null && !target.equalsIgnoreCase(host)) {
        return new Refusal(400, "request target and Host name different hosts");
      }
    }
    return null;
  }

  /** The authority of an absolute-form target ({@code http://a:1/x}), else null. */
  static String absoluteFormAuthority(String uri) {
    String lower = uri.toLowerCase(Locale.ROOT);
    int start;
    if (lower.startsWith("http://")) {
      start = 7;
    } else if (lower.startsWith("https://")) {
      start = 8;
    } else {
      return null;
    }
    int end = start;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
    return uri.substring(start, end);
  }

  /** A Content-Length header's value, or -1 when there is none or it is not a number. */
  static long contentLength(String header) {
    try {
      return header == null ? -1 : Long.parseLong(header.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Whether the connection must close after this request's response (see the class comment). */
  static boolean mustClose(HttpServerRequest req) {
    return req.version() != HttpVersion.HTTP_2 && req.headers().contains("transfer-encoding");
  }
}
