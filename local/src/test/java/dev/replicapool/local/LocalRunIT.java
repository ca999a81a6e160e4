package dev.replicapool.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.HostHttp;
import dev.replicapool.testing.Kubectl;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The README's first command, as a user types it: {@code scripts/run-local.sh} (in a session of its
 * own, so that a Ctrl-C can reach all of it), then what its summary tells the user to try: kubectl
 * against the printed kubeconfig, requests through the data plane to each example pool, gRPC
 * through the pool "grpc", and Ctrl-C, after which nothing it started is left listening. The four
 * ports the flags move are taken off their defaults, so a developer's own local run is not in the
 * way; the replicas' fixed ports must be free (the run checks that itself and says so).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalRunIT {
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();
  static Process run;
  static final StringBuffer output = new StringBuffer();
  static int traffic;
  static Kubectl kubectl;

  @BeforeAll
  static void start() throws Exception {
    assertThat(REPO.resolve("scripts/run-local.sh")).exists();
    int[] ports = freePorts(4);
    traffic = ports[0];
    // Ctrl-C in a terminal reaches a process that handles SIGINT. A CI job may start the tests with
    // SIGINT ignored (a background job of a script), every child inherits that, and the JVM then
    // leaves SIGINT ignored as under nohup: env puts back the default a terminal gives.
    run =
        new ProcessBuilder(
                "env",
                "--default-signal=INT",
                "setsid",
                "bash",
                "scripts/run-local.sh",
                "--traffic-port",
                String.valueOf(ports[0]),
                "--admin-port",
                String.valueOf(ports[1]),
                "--operator-port",
                String.valueOf(ports[2]),
                "--operator-admin",
                String.valueOf(ports[3]))
            .directory(REPO.toFile())
            .redirectErrorStream(true)
            .start();
    run.getOutputStream().close();
    Thread reader = new Thread(() -> copy(run.getInputStream()), "local-run-output");
    reader.setDaemon(true);
    reader.start();
    // The summary is read as it is written: its first line says the run is up, a later one names
    // the kubeconfig, so that line is what is waited for (the first alone once left it unread).
    Pattern kubeconfigLine = Pattern.compile("export KUBECONFIG=(\\S+)\\s");
    await()
        .atMost(Duration.ofMinutes(4))
        .failFast("the local run exited:\n" + output, () -> !run.isAlive())
        .until(() -> kubeconfigLine.matcher(output).find());
    assertThat(output).as("the summary says the run is up").contains("ReplicaPool runs locally");
    Matcher kubeconfig = kubeconfigLine.matcher(output);
    assertThat(kubeconfig.find()).isTrue();
    kubectl = new Kubectl(Path.of(kubeconfig.group(1)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (run != null && run.isAlive()) {
      // The whole session, not only the JVM: replicas it started would keep their fixed ports
      // and fail the next run.
      new ProcessBuilder("kill", "-KILL", "--", "-" + run.pid())
          .start()
          .waitFor(10, TimeUnit.SECONDS);
      run.destroyForcibly();
      run.waitFor(30, TimeUnit.SECONDS);
    }
    System.out.println("local run output:\n" + output);
  }

  @Test
  @Order(1)
  void kubectlSeesEveryExamplePoolReady() {
    Kubectl.Result waited =
        kubectl.run("wait", "--for=condition=Ready", "rp", "--all", "--timeout=60s");
    assertThat(waited.exitCode()).as(waited.output()).isZero();
    Kubectl.Result listed = kubectl.run("get", "rp");
    assertThat(listed.stdout()).contains("tracking", "adaptive", "registry", "grpc");
  }

  @Test
  @Order(2)
  void eachExamplePoolAnswersThroughTheDataPlane() throws IOException {
    assertThat(answering(traffic, "tracking.local", "k1", "k2", "k3"))
        .as("every member of tracking, and only they")
        .containsExactlyInAnyOrder("k1", "k2", "k3");
    assertThat(replicaAnswering(18080, "127.0.0.1:18080")).isIn("k1", "k2", "k3");
    assertThat(answering(traffic, "registry.local", "r1", "r2"))
        .as("the lease-registered replicas")
        .containsExactlyInAnyOrder("r1", "r2");
  }

  /**
   * The replicas that answered {@code host} on {@code port}, asked until each of {@code expected}
   * did (10 s at most). Gathered rather than counted from a fixed number of requests: with a 100 ms
   * probe timeout, a member whose probe timed out on a busy machine is out for a moment.
   */
  static Set<String> answering(int port, String host, String... expected) {
    Set<String> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              seen.add(replicaAnswering(port, host));
              assertThat(seen).contains(expected);
            });
    return seen;
  }

  @Test
  @Order(3)
  void grpcHealthChecksAnswerThroughThePoolsOwnPort() throws InterruptedException {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", LocalRunMain.GRPC_ROUTE_PORT)
            .usePlaintext()
            .build();
    try {
      ServingStatus status =
          HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus();
      assertThat(status).isEqualTo(ServingStatus.SERVING);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  @Order(4)
  void ctrlCStopsEverythingItStarted() throws Exception {
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    Process kill =
        new ProcessBuilder("kill", "-INT", "--", "-" + run.pid()).redirectErrorStream(true).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s:\n%s", output).isTrue();
    String said = output.toString();
    assertThat(said).contains("stopping everything this run started");
    String stopping = said.substring(said.indexOf("stopping everything"));
    assertThat(stopping)
        .as("a clean stop prints no error and no stack trace")
        .doesNotContain("ERROR", "Exception");
    List<Integer> started = List.of(traffic, 18080, 18081, 18082, 18083, 18091, 18092, 18101);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(started).allMatch(LocalRunIT::free));
  }

  /** The {@code x-replica} of a 200 answer to {@code GET /track/1} with this Host header. */
  static String replicaAnswering(int port, String host) throws IOException {
    HostHttp.Reply reply = HostHttp.get(new InetSocketAddress("127.0.0.1", port), host, "/track/1");
    assertThat(reply.status()).as("answer through the data plane: %s", reply).isEqualTo(200);
    return reply
        .header("x-replica")
        .orElseThrow(() -> new AssertionError("no x-replica: " + reply));
  }

  private static void copy(InputStream in) {
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        output.append(new String(buf, 0, n, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      output.append("\n[reading the run's output failed: ").append(e).append("]\n");
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int[] freePorts(int n) throws IOException {
    ServerSocket[] sockets = new ServerSocket[n];
    int[] ports = new int[n];
    try {
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket(0);
        ports[i] = sockets[i].getLocalPort();
      }
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          s.close();
        }
      }
    }
    return ports;
  }
}
