package dev.replicapool.dataplane.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The immutable set of pools a data plane routes to, with their lookups: by Host header (exact name
 * first, then the wildcard {@code *.suffix} with the longest suffix, which matches any name below
 * the suffix but not the suffix itself) and by dedicated port. Replaced as a whole on every change.
 */
public final class RoutingTable {
  public static final RoutingTable EMPTY = new RoutingTable(Map.of());

  private record Wildcard(String suffix, PoolRuntime pool) {}

  private final Map<String, PoolRuntime> pools;
  private final Map<String, PoolRuntime> exact = new HashMap<>();
  private final List<Wildcard> wildcards = new ArrayList<>();
  private final Map<Integer, PoolRuntime> byPort = new HashMap<>();

  private RoutingTable(Map<String, PoolRuntime> pools) {
    this.pools = Collections.unmodifiableMap(new TreeMap<>(pools));
    for (PoolRuntime p : this.pools.values()) {
      for (String h : p.hosts()) {
        if (h.startsWith("*.")) {
          wildcards.add(new Wildcard(h.substring(1), p));
        } else {
          exact.put(h, p);
        }
      }
      if (p.port() != null) {
        byPort.put(p.port(), p);
      }
    }
    wildcards.sort(Comparator.comparingInt((Wildcard w) -> w.suffix().length()).reversed());
  }

  /** Pools by name, sorted. */
  public Map<String, PoolRuntime> pools() {
    return pools;
  }

  public PoolRuntime pool(String name) {
    return pools.get(name);
  }

  /** The pool a Host header (or TLS server name) selects, or null. */
  public PoolRuntime poolForHost(String hostHeader) {
    String host = normalizeHost(hostHeader);
    if (host == null) {
      return null;
    }
    PoolRuntime p = exact.get(host);
    if (p != null) {
      return p;
    }
    for (Wildcard w : wildcards) {
      if (host.endsWith(w.suffix()) && host.length() > w.suffix().length()) {
        return w.pool();
      }
    }
    return null;
  }

  /** The pool that owns a dedicated port, or null. */
  public PoolRuntime poolForPort(int port) {
    return byPort.get(port);
  }

  /** Dedicated ports in use, with their pools. */
  public Map<Integer, PoolRuntime> ports() {
    return Collections.unmodifiableMap(byPort);
  }

  /**
   * This table with {@code pool} added or replaced.
   *
   * @throws IllegalArgumentException when one of its hosts or its port belongs to another pool
   */
  public RoutingTable with(PoolRuntime pool) {
    for (PoolRuntime other : pools.values()) {
      if (other.name().equals(pool.name())) {
        continue;
      }
      for (String h : pool.hosts()) {
        if (other.hosts().contains(h)) {
          throw new IllegalArgumentException(
              "host " + h + " is already routed to pool " + other.name());
        }
      }
      if (pool.port() != null && pool.port().equals(other.port())) {
        throw new IllegalArgumentException(
            "port " + pool.port() + " is already the port of pool " + other.name());
      }
    }
    Map<String, PoolRuntime> next = new HashMap<>(pools);
    next.put(pool.name(), pool);
    return new RoutingTable(next);
  }

  /** This table without the pool (the same table when it is not there). */
  public RoutingTable without(String pool) {
    if (!pools.containsKey(pool)) {
      return this;
    }
    Map<String, PoolRuntime> next = new HashMap<>(pools);
    next.remove(pool);
    return new RoutingTable(next);
  }

  /**
   * Lower case, without port and trailing dot; null for an empty or missing header. IPv6 literals
   * keep their brackets.
   */
  public static String normalizeHost(String hostHeader) {
    if (hostHeader == null) {
      return null;
    }
    String h = hostHeader.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      h = end > 0 ? h.substring(0, end + 1) : h;
    } else {
      int colon = h.indexOf(':');
      if (colon >= 0) {
        h = h.substring(0, colon);
      }
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h.isEmpty() ? null : h;
  }
}
