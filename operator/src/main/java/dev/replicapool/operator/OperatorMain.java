package dev.replicapool.operator;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * Command line of the operator.
 *
 * <pre>
 * java -jar replicapool-operator.jar [--kubeconfig FILE] [--namespaces a,b]
 *     [--control-plane-host 0.0.0.0] [--control-plane-port 18000] --token-file FILE
 *     [--tls-cert FILE --tls-key FILE] [--admin-port 8090] [--leader-election-namespace NS]
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
        --tls-cert FILE --tls-key FILE    PEM certificate and key for the control-plane port
        --admin-port PORT                 /metrics /healthz /readyz (default 8090)
        --leader-election-namespace NS    run with leader election on a Lease in NS
      """
          .formatted(ControlPlaneProtocol.DEFAULT_PORT);

  private OperatorMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags;
    try {
      flags = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("replicapool-operator: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    String tokenFile = flags.get("token-file");
    if (tokenFile == null) {
      System.err.println(
          "replicapool-operator: --token-file (or REPLICAPOOL_TOKEN_FILE) is required");
      System.err.print(USAGE);
      System.exit(2);
    }
    OperatorConfig config =
        new OperatorConfig(
            flags.containsKey("namespaces")
                ? Arrays.stream(flags.get("namespaces").split(","))
                    .map(String::trim)
                    .filter(s -> !s.isEmpty())
                    .collect(Collectors.toSet())
                : Set.of(),
            flags.getOrDefault("control-plane-host", "0.0.0.0"),
            Integer.parseInt(
                flags.getOrDefault(
                    "control-plane-port", Integer.toString(ControlPlaneProtocol.DEFAULT_PORT))),
            read(tokenFile).trim(),
            flags.containsKey("tls-cert") ? read(flags.get("tls-cert")) : null,
            flags.containsKey("tls-key") ? read(flags.get("tls-key")) : null,
            Integer.parseInt(flags.getOrDefault("admin-port", "8090")),
            flags.get("leader-election-namespace"));
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

  static Map<String, String> parse(String[] args) {
    Map<String, String> flags = new HashMap<>();
    for (String name :
        new String[] {
          "kubeconfig",
          "namespaces",
          "control-plane-host",
          "control-plane-port",
          "token-file",
          "tls-cert",
          "tls-key",
          "admin-port",
          "leader-election-namespace"
        }) {
      String env = System.getenv("REPLICAPOOL_" + name.toUpperCase().replace('-', '_'));
      if (env != null && !env.isBlank()) {
        flags.put(name, env);
      }
    }
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + a);
      }
      String name = a.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
      if (!USAGE.contains("--" + name + " ")) {
        throw new IllegalArgumentException("unknown flag --" + name);
      }
      flags.put(name, value);
    }
    return flags;
  }

  private static String read(String file) throws IOException {
    return Files.readString(Path.of(file));
  }
}
