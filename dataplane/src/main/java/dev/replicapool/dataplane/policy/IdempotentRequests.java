package dev.replicapool.dataplane.policy;

import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Idempotent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The one list of what a pool's members may safely receive twice, which retries and hedges both
 * ask: GET, HEAD and OPTIONS always; the methods the pool names in {@code routing.idempotent} and,
 * kept for compatibility, in {@code routing.hedging.idempotentMethods} (the union); gRPC calls only
 * when {@code routing.idempotent.grpcMethods} names them ({@code /pkg.Service/Method} or {@code
 * /pkg.Service/*}): a call's side effects are the service's, never assumed harmless.
 *
 * @param methods upper-case HTTP methods
 * @param grpcMethods full gRPC method paths, and service prefixes ending in {@code /} for {@code *}
 */
public record IdempotentRequests(Set<String> methods, List<String> grpcMethods) {
  static final Set<String> ALWAYS = Set.of("GET", "HEAD", "OPTIONS");

  /** GET, HEAD and OPTIONS; no gRPC method. */
  public static final IdempotentRequests DEFAULT = new IdempotentRequests(ALWAYS, List.of());

  /** The pool's list: {@code idempotent} and {@code hedging} may each be null. */
  public static IdempotentRequests from(Idempotent idempotent, Hedging hedging) {
    Set<String> methods = new HashSet<>(ALWAYS);
    List<String> grpc = new ArrayList<>();
    if (idempotent != null && idempotent.methods != null) {
      idempotent.methods.forEach(m -> methods.add(m.strip().toUpperCase(Locale.ROOT)));
    }
    if (hedging != null && hedging.idempotentMethods != null) {
      hedging.idempotentMethods.forEach(m -> methods.add(m.strip().toUpperCase(Locale.ROOT)));
    }
    if (idempotent != null && idempotent.grpcMethods != null) {
      for (String g : idempotent.grpcMethods) {
        String p = g.strip();
        grpc.add(p.endsWith("/*") ? p.substring(0, p.length() - 1) : p);
      }
    }
    return new IdempotentRequests(Set.copyOf(methods), List.copyOf(grpc));
  }

  /** Whether an HTTP request of {@code method} (not a gRPC call) may be received twice. */
  public boolean method(String method) {
    return methods.contains(method);
  }

  /** Whether the gRPC call to {@code path} ({@code /pkg.Service/Method}) may be received twice. */
  public boolean grpcCall(String path) {
    for (String g : grpcMethods) {
      if (g.endsWith("/")
          ? path.startsWith(g) && path.indexOf('/', g.length()) < 0
          : g.equals(path)) {
        return true;
      }
    }
    return false;
  }
}
