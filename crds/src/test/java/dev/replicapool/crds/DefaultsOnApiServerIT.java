package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaPools;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue #28's defaults on a real kube-apiserver: what the API server fills in is what the code
 * assumes for an absent field, the user's cases that used to be refused (or to silently do nothing)
 * now apply with the defaults shown, and the ones that can never work are refused with the field
 * and the reason.
 */
class DefaultsOnApiServerIT extends ApiServerTestBase {
  static final ObjectMapper JSON = new ObjectMapper();
  static String namespace;

  @BeforeAll
  static void installCrd() {
    namespace = apiServer.createNamespace(client, "crd-defaults");
    ReplicaPools.installCrd(kubectl, Path.of("../crds/"));
  }

  private static void apply(String name, String spec) {
    String yaml =
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: %s, namespace: %s}
        spec:
          %s
        """
            .formatted(name, namespace, spec);
    Kubectl.Result apply = kubectl.runWithInput(yaml, "apply", "-f", "-");
    assertThat(apply.exitCode()).as("kubectl refused %s: %s", name, apply.output()).isZero();
  }

  private static String jsonpath(String name, String path) {
    Kubectl.Result get = kubectl.run("get", "rp", name, "-n", namespace, "-o", "jsonpath=" + path);
    assertThat(get.exitCode()).as(get.output()).isZero();
    return get.stdout();
  }

  private static ReplicaPoolSpec read(String name) {
    ReplicaPool pool =
        client.resources(ReplicaPool.class).inNamespace(namespace).withName(name).get();
    assertThat(pool).as("pool %s", name).isNotNull();
    return pool.getSpec();
  }

  /**
   * Every optional object present and every defaulted field absent: the API server's defaults must
   * be exactly the Java initializers the operator and data plane fall back on for older objects.
   */
  @Test
  void theApiServerFillsInWhatTheCodeAssumesForAnAbsentField() {
    apply(
        "every-object",
        """
        endpoints: [{host: a.example, port: 8443}]
          appProtocol: https
          upstreamTls: {ca: {configMapName: ca}}
          healthCheck: {}
          registration: {}
          capacity: {peakRequestsPerSecond: 100, perReplicaRequestsPerSecond: 40}
          routing:
            policy: ConsistentHash
            consistentHash: {header: x-user}
            hedging: {delayMillis: 20}
            slowStart: {windowMillis: 5000}
            queue: {}
            retry: {budget: {}}
        """);
    ReplicaPoolSpec expected = new ReplicaPoolSpec();
    expected.endpoints = List.of(new StaticEndpoint("a.example", 8443));
    expected.appProtocol = AppProtocol.HTTPS;
    expected.upstreamTls = new UpstreamTls();
    expected.upstreamTls.ca = new CaCertificateSource();
    expected.upstreamTls.ca.configMapName = "ca";
    expected.registration = new Registration();
    expected.capacity = new Capacity();
    expected.capacity.peakRequestsPerSecond = 100.0;
    expected.capacity.perReplicaRequestsPerSecond = 40.0;
    expected.routing.policy = RoutingPolicy.ConsistentHash;
    expected.routing.consistentHash = new ConsistentHash();
    expected.routing.consistentHash.header = "x-user";
    expected.routing.hedging = new Hedging();
    expected.routing.hedging.delayMillis = 20L;
    expected.routing.slowStart = new SlowStart();
    expected.routing.slowStart.windowMillis = 5000L;
    expected.routing.queue = new RequestQueue();
    // The one default the Java type leaves null (read through dataPlaneGroupsOrDefault()).
    expected.dataPlaneGroups = List.of("default");

    JsonNode stored = JSON.valueToTree(read("every-object"));
    assertThat(stored).isEqualTo(JSON.valueToTree(expected));
    // Defaults that follow another field are not stored: the code derives them.
    assertThat(stored.at("/healthCheck").has("timeoutMillis")).isFalse();
    assertThat(stored.at("/healthCheck").has("startupGraceMillis")).isFalse();
  }

  @Test
  void kubectlShowsTheDefaultsInForce() {
    apply("minimal", "endpoints: [{host: a.example, port: 8080}]");
    assertThat(
            jsonpath(
                "minimal",
                "{.spec.healthCheck.intervalMillis} {.spec.healthCheck.unhealthyThreshold}"
                    + " {.spec.routing.policy} {.spec.routing.maxRequestsPerMember}"
                    + " {.spec.routing.timeouts.requestMillis} {.spec.routing.timeouts.perTryMillis}"
                    + " {.spec.routing.retry.connectFailureRetries}"
                    + " {.spec.routing.panicThresholdPercent}"))
        .isEqualTo("1000 3 RoundRobin 0 0 0 1 0");
    Kubectl.Result yaml = kubectl.run("get", "rp", "minimal", "-n", namespace, "-o", "yaml");
    assertThat(yaml.stdout())
        .contains("intervalMillis: 1000")
        .contains("maxEjectionMillis: 30000")
        .contains("minRetriesPerSecond: 10");
  }

  @Test
  void aShortIntervalAloneIsValidAndTheTimeoutFollowsIt() {
    apply(
        "short-interval",
        "endpoints: [{host: a.example, port: 8080}]\n  healthCheck: {intervalMillis: 200}");
    assertThat(jsonpath("short-interval", "{.spec.healthCheck.intervalMillis}")).isEqualTo("200");
    ReplicaPoolSpec spec = read("short-interval");
    assertThat(spec.healthCheck.timeoutMillis).isNull();
    assertThat(spec.healthCheck.timeoutMillisOrDefault()).isEqualTo(100);
  }

  @Test
  void aQueueWithOnlyItsTimeoutQueuesRequests() {
    apply(
        "queue-timeout-only",
        "endpoints: [{host: a.example, port: 8080}]\n"
            + "  routing: {maxRequestsPerMember: 8, queue: {timeoutMillis: 3000}}");
    assertThat(
            jsonpath(
                "queue-timeout-only",
                "{.spec.routing.queue.maxPending} {.spec.routing.queue.timeoutMillis}"))
        .isEqualTo("1024 3000");
    assertThat(read("queue-timeout-only").routing.queue.maxPending)
        .isEqualTo(RequestQueue.DEFAULT_MAX_PENDING);
  }

  @Test
  void endpointsWithoutPortTakeTheSpecPort() {
    apply(
        "endpoints-spec-port",
        "port: 8080\n  endpoints: [{host: a.example}, {host: b.example}, {host: a.example, port:"
            + " 9090}]");
    ReplicaPoolSpec spec = read("endpoints-spec-port");
    assertThat(spec.endpoints).hasSize(3);
    assertThat(spec.endpoints.get(0).port).isNull();
    assertThat(spec.port).isEqualTo(8080);
  }

  @Test
  void perTryUpToTheWholeRequestIsAccepted() {
    apply(
        "per-try-equal",
        "endpoints: [{host: a.example, port: 8080}]\n"
            + "  routing: {timeouts: {requestMillis: 500, perTryMillis: 500}}");
    apply(
        "per-try-without-request-limit",
        "endpoints: [{host: a.example, port: 8080}]\n"
            + "  routing: {timeouts: {perTryMillis: 3000}}");
    assertThat(
            jsonpath(
                "per-try-without-request-limit",
                "{.spec.routing.timeouts.requestMillis} {.spec.routing.timeouts.perTryMillis}"))
        .isEqualTo("0 3000");
  }

  @Test
  void upperCaseMethodsAreAccepted() {
    apply(
        "upper-case-methods",
        "endpoints: [{host: a.example, port: 8080}]\n"
            + "  routing: {idempotent: {methods: [PUT, DELETE]}, hedging: {delayMillis: 20,"
            + " idempotentMethods: [PUT]}}");
  }

  static Stream<Arguments> refusedPools() {
    String ok = "endpoints: [{host: 127.0.0.1, port: 8080}]";
    return Stream.of(
        Arguments.of(
            "hedging method in lower case",
            ok + "\n  routing: {hedging: {delayMillis: 20, idempotentMethods: [put]}}",
            "spec.routing.hedging.idempotentMethods",
            "idempotentMethods must be upper-case HTTP method tokens such as PUT or DELETE:"
                + " methods are case-sensitive"),
        Arguments.of(
            "idempotent method in lower case",
            ok + "\n  routing: {idempotent: {methods: [PUT, delete]}}",
            "spec.routing.idempotent.methods",
            "methods must be upper-case HTTP method tokens such as PUT or DELETE: methods are"
                + " case-sensitive"),
        Arguments.of(
            "per try above the whole request",
            ok + "\n  routing: {timeouts: {requestMillis: 1000, perTryMillis: 1500}}",
            "spec.routing.timeouts.perTryMillis",
            "routing.timeouts.perTryMillis must not exceed routing.timeouts.requestMillis"),
        Arguments.of(
            "timeout above the default interval",
            ok + "\n  healthCheck: {timeoutMillis: 1500}",
            "spec.healthCheck.timeoutMillis",
            "healthCheck.timeoutMillis must be below healthCheck.intervalMillis (default 1000)"),
        Arguments.of(
            "timeout not below a short interval",
            ok + "\n  healthCheck: {intervalMillis: 200, timeoutMillis: 300}",
            "spec.healthCheck.timeoutMillis",
            "the smaller of 500 and half of intervalMillis"),
        Arguments.of(
            "base ejection above the default ceiling",
            ok + "\n  routing: {outlierDetection: {baseEjectionMillis: 60000}}",
            "spec.routing.outlierDetection.maxEjectionMillis",
            "routing.outlierDetection.maxEjectionMillis (default 30000) must not be below"
                + " routing.outlierDetection.baseEjectionMillis (default 1000)"),
        Arguments.of(
            "renewal too slow for the default lease",
            "registration: {renewIntervalMillis: 500}",
            "spec.registration.leaseDurationMillis",
            "registration.leaseDurationMillis (default 900) must be at least three renewals long:"
                + " 3 x registration.renewIntervalMillis (default 300)"),
        Arguments.of(
            "grpc service with the default check type",
            ok + "\n  healthCheck: {grpcService: tracking.v1.Tracking}",
            "spec.healthCheck.grpcService",
            "grpcService is only used by type GRPC (healthCheck.type defaults to HTTP)"),
        Arguments.of(
            "upstream tls with the default protocol",
            ok + "\n  upstreamTls: {serverName: a.example}",
            "spec.upstreamTls",
            "upstreamTls needs appProtocol https or kubernetes.io/wss: the others speak clear text"
                + " (spec.appProtocol defaults to http)"),
        Arguments.of(
            "endpoint repeated through the spec port",
            "port: 8080\n  endpoints: [{host: a.example}, {host: a.example, port: 8080}]",
            "spec.endpoints",
            "endpoints must not repeat the same host and port (an endpoint without port has"
                + " spec.port)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedPools")
  void refusedWithTheFieldAndTheReason(
      String description, String spec, String field, String reason) {
    Kubectl.Result apply = RefusedPool.apply(kubectl, namespace, description, spec);
    assertThat(apply.stderr().replaceAll("\\s+", " "))
        .contains("is invalid")
        .contains(field + ":")
        .contains(reason)
        .doesNotContain("no such key");
  }
}
