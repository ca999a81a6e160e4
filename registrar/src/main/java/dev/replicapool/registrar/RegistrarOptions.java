package dev.replicapool.registrar;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The registrar's command line, parsed and checked. */
public record RegistrarOptions(
    Optional<String> namespace,
    String pool,
    String name,
    HostPort address,
    long leaseMillis,
    long renewMillis,
    Optional<URI> healthUrl,
    Optional<Long> healthTimeoutMillis,
    Optional<Path> kubeconfig,
    long drainMillis,
    boolean help) {

  public static final String USAGE =
      String.join(
          "\n",
          "usage: registrar --pool POOL --name NAME --address HOST:PORT [options]",
          "",
          "Registers a replica in a ReplicaPool by renewing a coordination.k8s.io Lease that",
          "carries its address and health flag. Stopped (SIGTERM) without --drain-ms it does not",
          "deregister: the member expires after the lease.",
          "",
          "  --namespace NS          namespace of the pool (default: the kube config's namespace,",
          "                          or the pod's namespace in a cluster)",
          "  --pool POOL             name of the ReplicaPool (required)",
          "  --name NAME             name of this replica, unique in the pool (required)",
          "  --address HOST:PORT     where the replica takes traffic and probes (required)",
          "  --lease-ms MS           lease duration in milliseconds (default 900)",
          "  --renew-ms MS           renew interval in milliseconds (default lease/3)",
          "  --health-url URL        local health URL checked at every renewal, 2xx = healthy",
          "                          (default: always report healthy)",
          "  --health-timeout-ms MS  time-out of that check (default renew/2, 50..1000)",
          "  --drain-ms MS           on SIGTERM, first mark the Lease drained (no new requests,",
          "                          those in flight finish) and keep renewing for MS, then",
          "                          delete the Lease (default 0: stop renewing at once)",
          "  --kubeconfig PATH       kube config file (default: $KUBECONFIG, ~/.kube/config,",
          "                          or the in-cluster service account)",
          "  --help                  show this text");

  private static final Set<String> VALUED =
      Set.of(
          "namespace",
          "pool",
          "name",
          "address",
          "lease-ms",
          "renew-ms",
          "health-url",
          "health-timeout-ms",
          "drain-ms",
          "kubeconfig");

  /** What {@code --help} parses to: nothing but the request for the usage. */
  private static final RegistrarOptions HELP =
      new RegistrarOptions(
          Optional.empty(),
          "",
          "",
          null,
          0,
          0,
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          0,
          true);

  /** Parses the command line; a {@code --help} anywhere wins over every other problem. */
  public static RegistrarOptions parse(String... args) throws UsageException {
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        return HELP;
      }
    }
    Flags flags = Flags.parse(args, VALUED, Set.of());
    requirePresent(flags, List.of("pool", "name", "address"));
    HostPort address = address(flags);
    long lease = flags.longValue("lease-ms", 900, 10, 3_600_000);
    long renew = renewMillis(flags, lease);
    Optional<Long> healthTimeout = healthTimeoutMillis(flags);
    Optional<Path> kubeconfig = kubeconfig(flags);
    String pool = flags.required("pool");
    String name = flags.required("name");
    Optional<String> namespace = flags.get("namespace");
    try {
      new MemberLease(namespace.orElse("default"), pool, name, address, lease);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return new RegistrarOptions(
        namespace,
        pool,
        name,
        address,
        lease,
        renew,
        flags.httpUrl("health-url"),
        healthTimeout,
        kubeconfig,
        flags.longValue("drain-ms", 0, 0, 3_600_000),
        false);
  }

  /** Names every missing one of {@code required} in one message. */
  private static void requirePresent(Flags flags, List<String> required) throws UsageException {
    List<String> missing = new ArrayList<>();
    for (String flag : required) {
      if (!flags.has(flag)) {
        missing.add("--" + flag);
      }
    }
    if (!missing.isEmpty()) {
      throw new UsageException("missing required " + String.join(", ", missing));
    }
  }

  /** The --address, which must be one a data plane can dial. */
  private static HostPort address(Flags flags) throws UsageException {
    HostPort address;
    try {
      address = HostPort.parse(flags.required("address"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--address: " + e.getMessage());
    }
    if (address.isWildcard()) {
      throw new UsageException(
          "--address "
              + address
              + " is a wildcard that nobody can dial; give the address the data plane reaches");
    }
    return address;
  }

  private static long renewMillis(Flags flags, long lease) throws UsageException {
    long renew = flags.longValue("renew-ms", Math.max(1, lease / 3), 1, 1_200_000);
    if (renew >= lease) {
      throw new UsageException(
          "--renew-ms ("
              + renew
              + ") must be shorter than --lease-ms ("
              + lease
              + "); a third of the lease is the rule");
    }
    return renew;
  }

  private static Optional<Long> healthTimeoutMillis(Flags flags) throws UsageException {
    Optional<Long> healthTimeout =
        flags.has("health-timeout-ms")
            ? Optional.of(flags.longValue("health-timeout-ms", 0, 1, 60_000))
            : Optional.empty();
    if (healthTimeout.isPresent() && !flags.has("health-url")) {
      throw new UsageException("--health-timeout-ms needs --health-url");
    }
    return healthTimeout;
  }

  private static Optional<Path> kubeconfig(Flags flags) throws UsageException {
    Optional<Path> kubeconfig = flags.get("kubeconfig").map(Path::of);
    if (kubeconfig.isPresent() && !Files.isReadable(kubeconfig.get())) {
      throw new UsageException("--kubeconfig " + kubeconfig.get() + " is not a readable file");
    }
    return kubeconfig;
  }

  /** Advice that does not stop the registrar. */
  public List<String> warnings() {
    List<String> warnings = new ArrayList<>();
    if (!help && renewMillis * 3 > leaseMillis) {
      warnings.add(
          "--renew-ms "
              + renewMillis
              + " is more than a third of --lease-ms "
              + leaseMillis
              + ": one slow renewal can let the member expire");
    }
    return warnings;
  }
}
