package dev.replicapool.controlplane;

import dev.replicapool.api.wire.PoolSnapshot;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Host names and dedicated port a pool's snapshot takes on a data plane: what another pool may
 * have been refused for. Only compared, to tell when a data plane gave some up.
 *
 * @param port null for none
 */
record RouteClaims(Set<String> hosts, Integer port) {
  static final RouteClaims NONE = new RouteClaims(Set.of(), null);

  RouteClaims {
    hosts = Set.copyOf(hosts);
  }

  static RouteClaims of(PoolSnapshot s) {
    Set<String> hosts = new TreeSet<>();
    if (s.hosts() != null) {
      s.hosts().forEach(h -> hosts.add(h.toLowerCase(Locale.ROOT)));
    }
    return new RouteClaims(hosts, s.port());
  }

  /** Whether going from these claims to {@code next} gives up a host or the port. */
  boolean givesUpFor(RouteClaims next) {
    return !next.hosts.containsAll(hosts) || (port != null && !port.equals(next.port));
  }
}
