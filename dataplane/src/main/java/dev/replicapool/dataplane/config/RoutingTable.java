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
 * the suffix but not the suffix itself) and by dedicated port.
 *
 * <p>A change makes a new table through an {@link Editor}, which copies the maps once and then
 * works per changed pool: a burst of snapshots costs one copy, not one copy per snapshot, and host
 * and port conflicts are lookups, not scans of every other pool.
 */
public final class RoutingTable {
  public static final RoutingTable EMPTY =
      new RoutingTable(Map.of(), Map.of(), List.of(), Map.of());

  private record Wildcard(String suffix, PoolRuntime pool) {}

  private static final Comparator<Wildcard> LONGEST_SUFFIX_FIRST =
      Comparator.comparingInt((Wildcard w) -> w.suffix().length())
          .reversed()
          .thenComparing(Wildcard::suffix);

  private final Map<String, PoolRuntime> pools;
  private final Map<String, PoolRuntime> exact;
  private final List<Wildcard> wildcards;
  private final Map<Integer, PoolRuntime> byPort;
  private volatile Map<String, PoolRuntime> sorted;

  private RoutingTable(
      Map<String, PoolRuntime> pools,
      Map<String, PoolRuntime> exact,
      List<Wildcard> wildcards,
      Map<Integer, PoolRuntime> byPort) {
    this.pools = Collections.unmodifiableMap(pools);
    this.exact = exact;
    this.wildcards = wildcards;
    this.byPort = Collections.unmodifiableMap(byPort);
  }

  /** Pools by name, in no particular order. */
  public Map<String, PoolRuntime> pools() {
    return pools;
  }

  /** Pools by name, sorted (for reports; computed on first use). */
  public Map<String, PoolRuntime> sortedPools() {
    Map<String, PoolRuntime> s = sorted;
    if (s == null) {
      s = Collections.unmodifiableMap(new TreeMap<>(pools));
      sorted = s;
    }
    return s;
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
    return byPort;
  }

  /**
   * This table with {@code pool} added or replaced.
   *
   * @throws IllegalArgumentException when one of its hosts or its port belongs to another pool
   */
  public RoutingTable with(PoolRuntime pool) {
    return edit().put(pool).build();
  }

  /** This table without the pool (the same table when it is not there). */
  public RoutingTable without(String pool) {
    return pools.containsKey(pool) ? edit().remove(pool).build() : this;
  }

  /** Starts a change of this table; the table itself never changes. */
  public Editor edit() {
    return new Editor(this);
  }

  /** A table being changed: copies of the maps, changed per pool, frozen by {@link #build}. */
  public static final class Editor {
    private final RoutingTable base;
    private final Map<String, PoolRuntime> pools;
    private final Map<String, PoolRuntime> exact;
    private final Map<String, PoolRuntime> wildcardPools;
    private final Map<Integer, PoolRuntime> byPort;
    private boolean wildcardsChanged;
    private boolean built;

    private Editor(RoutingTable base) {
      this.base = base;
      this.pools = new HashMap<>(base.pools);
      this.exact = new HashMap<>(base.exact);
      this.wildcardPools = new HashMap<>();
      for (Wildcard w : base.wildcards) {
        wildcardPools.put(w.suffix(), w.pool());
      }
      this.byPort = new HashMap<>(base.byPort);
    }

    /** The pool as this edit has it so far. */
    public PoolRuntime pool(String name) {
      return pools.get(name);
    }

    /**
     * Adds or replaces a pool. Checks come first, so a refused pool leaves the edit unchanged.
     *
     * @throws IllegalArgumentException when one of its hosts or its port belongs to another pool
     */
    public Editor put(PoolRuntime pool) {
      checkNotBuilt();
      String name = pool.name();
      for (String h : pool.hosts()) {
        PoolRuntime owner = h.startsWith("*.") ? wildcardPools.get(h.substring(1)) : exact.get(h);
        if (owner != null && !owner.name().equals(name)) {
          throw new IllegalArgumentException(
              "host " + h + " is already routed to pool " + owner.name());
        }
      }
      if (pool.port() != null) {
        PoolRuntime owner = byPort.get(pool.port());
        if (owner != null && !owner.name().equals(name)) {
          throw new IllegalArgumentException(
              "port " + pool.port() + " is already the port of pool " + owner.name());
        }
      }
      remove(name);
      pools.put(name, pool);
      for (String h : pool.hosts()) {
        if (h.startsWith("*.")) {
          wildcardPools.put(h.substring(1), pool);
          wildcardsChanged = true;
        } else {
          exact.put(h, pool);
        }
      }
      if (pool.port() != null) {
        byPort.put(pool.port(), pool);
      }
      return this;
    }

    /** Removes a pool, if there. */
    public Editor remove(String name) {
      checkNotBuilt();
      PoolRuntime old = pools.remove(name);
      if (old == null) {
        return this;
      }
      for (String h : old.hosts()) {
        if (h.startsWith("*.")) {
          wildcardPools.remove(h.substring(1), old);
          wildcardsChanged = true;
        } else {
          exact.remove(h, old);
        }
      }
      if (old.port() != null) {
        byPort.remove(old.port(), old);
      }
      return this;
    }

    /** The new table. The editor is spent: the table shares its maps. */
    public RoutingTable build() {
      checkNotBuilt();
      List<Wildcard> wildcards;
      if (wildcardsChanged) {
        wildcards = new ArrayList<>();
        wildcardPools.forEach((suffix, p) -> wildcards.add(new Wildcard(suffix, p)));
        wildcards.sort(LONGEST_SUFFIX_FIRST);
      } else {
        wildcards = base.wildcards; // no pool with a wildcard host was touched
      }
      built = true;
      return new RoutingTable(pools, exact, List.copyOf(wildcards), byPort);
    }

    private void checkNotBuilt() {
      if (built) {
        throw new IllegalStateException("this edit was already built into a table");
      }
    }
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
