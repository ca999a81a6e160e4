package dev.replicapool.dataplane.config;

import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether the data plane takes one change of a pool, judged against the pool as the table has it so
 * far: it refuses a removal older than the applied version, and a snapshot with {@link
 * PoolSnapshot#problems()}, older than the applied one, listing a member twice, naming a host that
 * is no DNS name, or claiming one of the data plane's own ports. A refusal is an {@link
 * IllegalArgumentException} whose message is the NACK's reason.
 *
 * <p>{@link ConfigStore} asks it for each change of a batch. Hosts or a port that belong to another
 * pool are the table's own check ({@link RoutingTable.Editor#put}); TLS material that will not load
 * is found when {@link PoolRuntimeFactory} loads it.
 */
final class SnapshotValidator {
  private static final Pattern HOST = Pattern.compile(Route.HOSTNAME_PATTERN);

  private SnapshotValidator() {}

  /**
   * Refuses the removal of a pool at {@code version} when the table holds a newer one.
   *
   * @param existing the pool as the table has it, or null
   */
  static void checkRemoval(PoolRuntime existing, long version) {
    if (existing != null && existing.version() > version) {
      throw new IllegalArgumentException(
          "removal version " + version + " is older than the applied " + existing.version());
    }
  }

  /**
   * Refuses a snapshot the data plane cannot serve.
   *
   * @param existing the pool as the table has it, or null
   * @param reservedPorts the data plane's own ports (traffic, TLS, admin)
   * @return the pool's host names, lower-cased and without repeats
   */
  static List<String> check(PoolSnapshot s, PoolRuntime existing, Set<Integer> reservedPorts) {
    List<String> problems = s.problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid snapshot: " + String.join("; ", problems));
    }
    if (existing != null && s.version() < existing.version()) {
      throw new IllegalArgumentException(
          "version " + s.version() + " is older than the applied " + existing.version());
    }
    requireDistinctMembers(s);
    List<String> hosts = hosts(s);
    if (s.port() != null && reservedPorts.contains(s.port())) {
      throw new IllegalArgumentException(
          "port " + s.port() + " is one of the data plane's own ports");
    }
    return hosts;
  }

  private static void requireDistinctMembers(PoolSnapshot s) {
    Set<String> addresses = new HashSet<>();
    for (MemberSnapshot m : s.members()) {
      if (!addresses.add(m.address())) {
        throw new IllegalArgumentException("member " + m.address() + " is listed twice");
      }
    }
  }

  /** The pool's host names, lower-cased and without repeats; refuses one that is no DNS name. */
  private static List<String> hosts(PoolSnapshot s) {
    List<String> hosts = new ArrayList<>();
    for (String h : s.hosts() == null ? List.<String>of() : s.hosts()) {
      String n = h == null ? "" : h.strip().toLowerCase(Locale.ROOT);
      if (!HOST.matcher(n).matches()) {
        throw new IllegalArgumentException("host " + h + " is not a DNS name or *.suffix");
      }
      if (!hosts.contains(n)) {
        hosts.add(n);
      }
    }
    return hosts;
  }
}
