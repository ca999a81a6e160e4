package dev.replicapool.replica;

import dev.replicapool.registrar.Flags;
import dev.replicapool.registrar.HostPort;
import dev.replicapool.registrar.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/** The sample replica's command line, parsed and checked. */
public record ReplicaOptions(
    String name,
    String host,
    int port,
    int threads,
    OptionalLong seed,
    Optional<Registration> register,
    boolean help,
    int grpcPort,
    int workers,
    long serviceMillis,
    int agentPort,
    int busyWorkers) {

  /** {@code --register namespace/pool} and the settings of its Lease. */
  public record Registration(
      String namespace,
      String pool,
      HostPort advertise,
      Optional<Path> kubeconfig,
      long leaseMillis,
      long renewMillis) {}

  public static final String USAGE =
      String.join(
          "\n",
          "usage: sample-replica --name NAME [--host 127.0.0.1] [--port 8080] [options]",
          "",
          "A small HTTP service (HTTP/1.1 and h2c) that answers GET /track/<id> with its name in",
          "the x-replica header, /healthz and /health with 200 or 503, and can be told to go slow",
          "or sick: POST /admin/slow?ms=N, /admin/errors?rate=R, /admin/unhealthy,",
          "/admin/healthy, /admin/freeze?ms=N, /admin/reset,",
          "/admin/capacity?workers=N&serviceMs=M&busy=B&report=true|false;",
          "GET /admin/state.",
          "With --grpc-port it serves gRPC (h2c) as well: grpc.health.v1.Health (NOT_SERVING",
          "while /admin/unhealthy), server reflection, and replicapool.sample.Tracking/Track, a",
          "unary method taking a tracking id as UTF-8 bytes and answering the /track JSON.",
          "",
          "  --name NAME             replica name, sent in the x-replica header (required)",
          "  --host HOST             address to listen on (default 127.0.0.1)",
          "  --port PORT             port to listen on, 0 for any free one (default 8080)",
          "  --threads N             event loops (default 1)",
          "  --grpc-port PORT        also serve gRPC on this port, 0 for any free one",
          "  --workers N             serve N requests at once, queue the rest (FIFO), and report",
          "                          the busy share in the endpoint-load-metrics header",
          "                          (default: unlimited, no report)",
          "  --service-ms MS         time each request holds a worker (default 0; needs --workers)",
          "  --busy-workers N        a batch job in the replica holds N of its workers (fewer",
          "                          than --workers): a noisy neighbour its load report shows",
          "  --agent-port PORT       answer HAProxy's agent-check on this port (0: any free one):",
          "                          the idle share of its workers as a weight, \"75%\\n\"",
          "  --seed N                seed of the random that picks injected errors",
          "  --register NS/POOL      register in that ReplicaPool by renewing a Lease whose",
          "                          health flag follows /healthz",
          "  --advertise HOST:PORT   address to register (default HOST:PORT of the listener)",
          "  --kubeconfig PATH       kube config for --register (default: kubectl's lookup)",
          "  --lease-ms MS           lease duration for --register (default 900)",
          "  --renew-ms MS           renew interval for --register (default lease/3)",
          "  --help                  show this text");

  private static final Set<String> VALUED =
      Set.of(
          "name",
          "host",
          "port",
          "threads",
          "grpc-port",
          "seed",
          "register",
          "advertise",
          "kubeconfig",
          "lease-ms",
          "renew-ms",
          "workers",
          "service-ms",
          "busy-workers",
          "agent-port");
  private static final Set<String> REGISTRATION_ONLY =
      Set.of("advertise", "kubeconfig", "lease-ms", "renew-ms");

  public static ReplicaOptions parse(String... args) throws UsageException {
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        return new ReplicaOptions(
            "-", "-", 0, 1, OptionalLong.empty(), Optional.empty(), true, -1, 0, 0, -1, 0);
      }
    }
    Flags flags = Flags.parse(args, VALUED, Set.of());
    String name = flags.required("name");
    String host = flags.string("host", "127.0.0.1");
    int port = (int) flags.longValue("port", 8080, 0, 65535);
    int threads = (int) flags.longValue("threads", 1, 1, 256);
    int grpcPort = flags.has("grpc-port") ? (int) flags.longValue("grpc-port", 0, 0, 65535) : -1;
    if (grpcPort > 0 && grpcPort == port) {
      throw new UsageException("--grpc-port must differ from --port");
    }
    OptionalLong seed =
        flags.has("seed")
            ? OptionalLong.of(flags.longValue("seed", 0, Long.MIN_VALUE, Long.MAX_VALUE))
            : OptionalLong.empty();
    Optional<Registration> registration = Optional.empty();
    if (flags.has("register")) {
      registration = Optional.of(registration(flags, host, port));
    } else {
      for (String flag : REGISTRATION_ONLY) {
        if (flags.has(flag)) {
          throw new UsageException("--" + flag + " needs --register NAMESPACE/POOL");
        }
      }
    }
    int workers = flags.has("workers") ? (int) flags.longValue("workers", 1, 1, 100_000) : 0;
    long serviceMillis = flags.longValue("service-ms", 0, 0, ReplicaState.MAX_MILLIS);
    if (workers == 0 && flags.has("service-ms")) {
      throw new UsageException("--service-ms needs --workers N");
    }
    int busyWorkers = (int) flags.longValue("busy-workers", 0, 0, 100_000);
    if (busyWorkers > 0 && busyWorkers >= workers) {
      throw new UsageException(
          workers == 0
              ? "--busy-workers needs --workers N"
              : "--busy-workers must be fewer than --workers (" + workers + ")");
    }
    int agentPort = flags.has("agent-port") ? (int) flags.longValue("agent-port", 0, 0, 65535) : -1;
    if (agentPort > 0 && (agentPort == port || agentPort == grpcPort)) {
      throw new UsageException("--agent-port must differ from --port and --grpc-port");
    }
    return new ReplicaOptions(
        name,
        host,
        port,
        threads,
        seed,
        registration,
        false,
        grpcPort,
        workers,
        serviceMillis,
        agentPort,
        busyWorkers);
  }

  private static Registration registration(Flags flags, String host, int port)
      throws UsageException {
    String value = flags.required("register");
    int slash = value.indexOf('/');
    if (slash <= 0 || slash == value.length() - 1 || value.indexOf('/', slash + 1) >= 0) {
      throw new UsageException("--register must be NAMESPACE/POOL, got '" + value + "'");
    }
    HostPort advertise = advertise(flags, host, port);
    long lease = flags.longValue("lease-ms", 900, 10, 3_600_000);
    long renew = flags.longValue("renew-ms", Math.max(1, lease / 3), 1, 1_200_000);
    if (renew >= lease) {
      throw new UsageException(
          "--renew-ms (" + renew + ") must be shorter than --lease-ms (" + lease + ")");
    }
    Optional<Path> kubeconfig = flags.get("kubeconfig").map(Path::of);
    if (kubeconfig.isPresent() && !Files.isReadable(kubeconfig.get())) {
      throw new UsageException("--kubeconfig " + kubeconfig.get() + " is not a readable file");
    }
    return new Registration(
        value.substring(0, slash), value.substring(slash + 1), advertise, kubeconfig, lease, renew);
  }

  /** The address to register: --advertise, else the listener's own (which must be dialable). */
  private static HostPort advertise(Flags flags, String host, int port) throws UsageException {
    HostPort advertise;
    if (flags.has("advertise")) {
      try {
        advertise = HostPort.parse(flags.required("advertise"));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--advertise: " + e.getMessage());
      }
      if (advertise.isWildcard()) {
        throw new UsageException(
            "--advertise must be an address others can dial, not " + advertise);
      }
      return advertise;
    }
    if (port == 0) {
      throw new UsageException("--register with --port 0 needs --advertise HOST:PORT");
    }
    try {
      advertise = new HostPort(host, port);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--host: " + e.getMessage());
    }
    if (advertise.isWildcard()) {
      throw new UsageException(
          "--host " + host + " is a wildcard nobody can dial: give --advertise HOST:PORT");
    }
    return advertise;
  }
}
