package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.policy.IdempotentRequests;
import dev.replicapool.dataplane.routing.HashKey;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The request headers of a client HTTP/2 stream: what {@link H2StreamForwarder} reads from them
 * (gRPC, idempotency, a loop, the hash key, the call's own {@code grpc-timeout}) and the headers
 * the member gets instead ({@code X-Forwarded-*} and this proxy's {@code Via} added).
 */
final class H2RequestHeaders {
  private H2RequestHeaders() {}

  static boolean grpc(Http2Headers in) {
    CharSequence ct = in.get("content-type");
    return ct != null && ct.toString().startsWith("application/grpc");
  }

  /** Whether the request's {@code via} (or null) names this proxy: the request looped back. */
  static boolean loopedBack(CharSequence via, String viaName) {
    return via != null && via.toString().contains(viaName);
  }

  /**
   * Whether the pool's members may receive this request twice: a gRPC call when the pool names its
   * method ({@code :path}), anything else by its method.
   */
  static boolean idempotent(Http2Headers in, boolean grpc, IdempotentRequests pool) {
    if (grpc) {
      return in.path() != null && pool.grpcCall(in.path().toString());
    }
    return in.method() != null && pool.method(in.method().toString());
  }

  /**
   * The headers the member gets: the client's, with its address appended to X-Forwarded-For, the
   * scheme and authority as X-Forwarded-Proto and -Host, and this proxy appended to Via.
   *
   * @param via the request's Via, or null
   * @param client the client's address, or null
   */
  static Http2Headers forwarded(
      Http2Headers in, CharSequence via, String client, boolean tls, String viaName) {
    Http2Headers out = new DefaultHttp2Headers(true, in.size() + 4);
    out.set(in);
    CharSequence xff = in.get("x-forwarded-for");
    if (client != null) {
      out.set("x-forwarded-for", xff == null ? client : xff + ", " + client);
    }
    out.set("x-forwarded-proto", tls ? "https" : "http");
    if (in.authority() != null) {
      out.set("x-forwarded-host", in.authority());
    }
    String mine = "2 " + viaName;
    out.set("via", via == null ? mine : via + ", " + mine);
    return out;
  }

  /** The client's address: the remote end of the stream's connection, or null. */
  static String clientAddress(Channel stream) {
    if (stream.parent() != null && stream.parent().remoteAddress() instanceof InetSocketAddress a) {
      return a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    }
    return null;
  }

  /**
   * The request's key for a ConsistentHash pool ({@code k} null: none); Cookie headers count as one
   * (RFC 9113 8.2.3).
   */
  static HashKey.Key hashKey(HashKey k, Http2Headers in, String client) {
    if (k == null) {
      return HashKey.Key.NONE;
    }
    return k.of(
        name -> {
          if (!name.equals("cookie")) {
            CharSequence v = in.get(name);
            return v == null ? null : v.toString();
          }
          var values = in.getAll(name);
          return values.isEmpty() ? null : String.join("; ", values);
        },
        client);
  }

  /** gRPC's {@code grpc-timeout}: 1-8 digits and a unit (H M S m u n); 0 when absent or invalid. */
  static long grpcTimeoutNanos(CharSequence v) {
    if (v == null || v.length() < 2 || v.length() > 9) {
      return 0;
    }
    long n = 0;
    for (int i = 0; i < v.length() - 1; i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      n = n * 10 + (c - '0');
    }
    return switch (v.charAt(v.length() - 1)) {
      case 'H' -> TimeUnit.HOURS.toNanos(n);
      case 'M' -> TimeUnit.MINUTES.toNanos(n);
      case 'S' -> TimeUnit.SECONDS.toNanos(n);
      case 'm' -> TimeUnit.MILLISECONDS.toNanos(n);
      case 'u' -> TimeUnit.MICROSECONDS.toNanos(n);
      case 'n' -> n;
      default -> 0;
    };
  }
}
