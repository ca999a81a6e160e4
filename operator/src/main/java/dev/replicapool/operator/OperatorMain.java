package dev.replicapool.operator;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.Pem;
import dev.replicapool.cli.CommandLineException;
import dev.replicapool.cli.FlagParser;
import dev.replicapool.cli.ParsedFlags;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Command line of the operator.
 *
 * <pre>
 * java -jar replicapool-operator.jar [--kubeconfig FILE] [--namespaces a,b]
 *     [--control-plane-host 0.0.0.0] [--control-plane-port 18000] --token-file FILE
 *     [--group-tokens-dir DIR] [--tls-cert FILE --tls-key FILE [--client-ca FILE]]
 *     [--admin-port 8090]
 *     [--leader-election-namespace NS]
 * </pre>
 *
 * Every flag can also be given as an environment variable: --token-file is REPLICAPOOL_TOKEN_FILE.
 */
public final class OperatorMain {
  static final String USAGE =
      """
      usage: replicapool-operator [flags]
        --kubeconfig FILE                 kubeconfig (default: in-cluster or ~/.kube/config)
        --namespaces a,b                  namespaces to watch (default: all)
        --control-plane-host ADDR         address data planes dial (default 0.0.0.0)
        --control-plane-port PORT         default %d
        --token-file FILE                 shared token data planes must present (required)
        --group-tokens-dir DIR            one file per data-plane group, named by the group and
                                          holding its own token (a mounted Secret): a data plane
                                          of such a group must present it, and it serves no
                                          other group
        --tls-cert FILE --tls-key FILE    PEM certificate and key for the control-plane port (TLS)
        --client-ca FILE                  PEM CA of the data planes' client certificates: each data
                                          plane must present one it signed (mutual TLS), on top of
                                          the token; needs --tls-cert and --tls-key
        --admin-port PORT                 /metrics /healthz /readyz (default 8090)
        --leader-election-namespace NS    run with leader election on a Lease in NS
        --otlp-endpoint URL               trace reconciles and pushes (each push until every data
                                          plane applied it) to this OTLP/HTTP receiver (default off)
        --trace-sampling RATIO            share of those traces kept, 0 to 1 (default 1)
      """
          .formatted(ControlPlaneProtocol.DEFAULT_PORT);

  /** The flags; each may also come from the environment, as {@code REPLICAPOOL_<FLAG>}. */
  private static final List<String> FLAGS =
      List.of(
          "kubeconfig",
          "namespaces",
          "control-plane-host",
          "control-plane-port",
          "token-file",
          "group-tokens-dir",
          "tls-cert",
          "tls-key",
          "client-ca",
          "admin-port",
          "leader-election-namespace",
          "otlp-endpoint",
          "trace-sampling");

  private static final FlagParser PARSER =
      FlagParser.of(FLAGS, List.of())
          .withHelpWords("--help", "-h")
          .withEnvironment("REPLICAPOOL_")
          .withLaterRepeatWinning();

  private OperatorMain() {}

  public static void main(String[] args) throws Exception {
    // Our logging (INFO) unless the user names a file; a name of its own, since the jars beside
    // the operator's on a class path (the local run's, the tests') bring logback.xml files too.
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "replicapool-operator-logback.xml");
    }
    Map<String, String> flags;
    OperatorConfig config;
    try {
      ParsedFlags parsed = readCommandLine(args, System.getenv());
      if (parsed.help()) {
        System.out.print(USAGE);
        return;
      }
      flags = parsed.values();
      config = config(flags);
    } catch (IllegalArgumentException e) {
      System.err.println("replicapool-operator: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    Config kube =
        flags.containsKey("kubeconfig")
            ? Config.fromKubeconfig(read(flags.get("kubeconfig")))
            : Config.autoConfigure(null);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(kube).build();
    ReplicaPoolOperator operator = ReplicaPoolOperator.start(client, config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.close();
                  client.close();
                  stopped.countDown();
                },
                "operator-shutdown"));
    stopped.await();
  }

  /**
   * The operator's configuration from parsed flags; reads the files they name.
   *
   * @throws IllegalArgumentException with a message for the user when the flags cannot work
   */
  static OperatorConfig config(Map<String, String> flags) {
    String tokenFile = flags.get("token-file");
    if (tokenFile == null) {
      throw new IllegalArgumentException("--token-file (or REPLICAPOOL_TOKEN_FILE) is required");
    }
    requireTlsFlagsConsistent(flags);
    boolean cert = flags.containsKey("tls-cert");
    boolean key = flags.containsKey("tls-key");
    String token = readFlag(flags, "token-file").strip();
    if (token.isEmpty()) {
      throw new IllegalArgumentException("the token file " + tokenFile + " is empty");
    }
    OperatorConfig config =
        new OperatorConfig(
            namespaces(flags),
            flags.getOrDefault("control-plane-host", "0.0.0.0"),
            Integer.parseInt(
                flags.getOrDefault(
                    "control-plane-port", Integer.toString(ControlPlaneProtocol.DEFAULT_PORT))),
            token,
            cert ? pem(flags, "tls-cert", "CERTIFICATE") : null,
            key ? pem(flags, "tls-key", "PRIVATE KEY") : null,
            Integer.parseInt(flags.getOrDefault("admin-port", "8090")),
            flags.get("leader-election-namespace"));
    if (flags.containsKey("otlp-endpoint")) {
      config = config.withTracing(otlpEndpoint(flags), sampling(flags));
    }
    if (flags.containsKey("group-tokens-dir")) {
      config = config.withGroupTokens(groupTokens(flags.get("group-tokens-dir"), token));
    }
    return flags.containsKey("client-ca")
        ? config.withClientCa(pem(flags, "client-ca", "CERTIFICATE"))
        : config;
  }

  private static java.net.URI otlpEndpoint(Map<String, String> flags) {
    String value = flags.get("otlp-endpoint");
    try {
      return value.equalsIgnoreCase("off") ? null : java.net.URI.create(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--otlp-endpoint: not a URL: " + value);
    }
  }

  private static double sampling(Map<String, String> flags) {
    String value = flags.getOrDefault("trace-sampling", "1");
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--trace-sampling takes a ratio from 0 to 1: " + value);
    }
  }

  /** Certificate and key come together, and a client CA only with them. */
  private static void requireTlsFlagsConsistent(Map<String, String> flags) {
    boolean cert = flags.containsKey("tls-cert");
    boolean key = flags.containsKey("tls-key");
    if (cert != key) {
      throw new IllegalArgumentException(
          "--tls-cert and --tls-key go together: give both or neither");
    }
    if (flags.containsKey("client-ca") && !cert) {
      throw new IllegalArgumentException(
          "--client-ca (mutual TLS) needs TLS on the control-plane port:"
              + " give --tls-cert and --tls-key too");
    }
  }

  /** The namespaces of --namespaces, blanks dropped; none means all. */
  private static Set<String> namespaces(Map<String, String> flags) {
    return flags.containsKey("namespaces")
        ? Arrays.stream(flags.get("namespaces").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toSet())
        : Set.of();
  }

  /**
   * The tokens of a directory with one file per group (a Secret mounted as a volume: its {@code
   * ..data} entries are skipped). Refuses a file whose name is no group name, an empty token, a
   * token two groups share and the shared token reused: each would let one token serve more than
   * one group.
   */
  static Map<String, String> groupTokens(String dir, String sharedToken) {
    Map<String, String> tokens = new TreeMap<>();
    try (Stream<Path> files = Files.list(Path.of(dir))) {
      for (Path f : files.sorted().toList()) {
        String group = f.getFileName().toString();
        if (group.startsWith(".") || Files.isDirectory(f)) {
          continue;
        }
        if (!ControlPlaneProtocol.validGroup(group)) {
          throw new IllegalArgumentException(
              "--group-tokens-dir: " + f + " is not named by a data-plane group (a DNS label)");
        }
        String t = Files.readString(f).strip();
        if (t.isEmpty()) {
          throw new IllegalArgumentException("--group-tokens-dir: " + f + " is empty");
        }
        if (t.equals(sharedToken) || tokens.containsValue(t)) {
          throw new IllegalArgumentException(
              "--group-tokens-dir: the token of group "
                  + group
                  + " is also the shared token or another group's: each group needs its own");
        }
        tokens.put(group, t);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--group-tokens-dir: cannot read " + dir + " (" + e.getMessage() + ")", e);
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("--group-tokens-dir: " + dir + " holds no token");
    }
    return tokens;
  }

  /** The flags: REPLICAPOOL_* variables of {@code env} first, then the arguments. */
  static Map<String, String> parse(String[] args, Map<String, String> env) {
    return readCommandLine(args, env).values();
  }

  /** The command line as read: its flags, or the request for the usage ({@code --help}, -h). */
  static ParsedFlags readCommandLine(String[] args, Map<String, String> env) {
    try {
      return PARSER.parse(args, env);
    } catch (CommandLineException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static String read(String file) throws IOException {
    return Files.readString(Path.of(file));
  }

  private static String readFlag(Map<String, String> flags, String flag) {
    String file = flags.get(flag);
    try {
      return read(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--" + flag + ": cannot read " + file + " (" + e.getMessage() + ")", e);
    }
  }

  /** The PEM file the flag names; refuses one without a {@code -----BEGIN <kind>} block. */
  private static String pem(Map<String, String> flags, String flag, String kind) {
    String pem = readFlag(flags, flag);
    if (!Pem.holds(pem, kind)) {
      throw new IllegalArgumentException(
          "--" + flag + ": " + flags.get(flag) + " holds no PEM " + kind.toLowerCase());
    }
    return pem;
  }
}
