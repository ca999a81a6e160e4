package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.Kubectl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The user's path with kubectl on a real kube-apiserver: install, apply, get, explain, refuse. */
class CrdOnApiServerIT extends ApiServerTestBase {
  static String namespace;

  @BeforeAll
  static void installCrd() {
    namespace = apiServer.createNamespace(client, "crd");
    Kubectl.Result apply = kubectl.run("apply", "-f", "../crds/");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    Kubectl.Result established =
        kubectl.run(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/replicapools.replicapool.dev");
    assertThat(established.exitCode()).as(established.output()).isZero();
  }

  @Test
  void exampleAppliesAndShowsPrinterColumns() throws IOException {
    String example =
        Files.readString(Path.of("../examples/replicapool.yaml"))
            .replace("namespace: default", "namespace: " + namespace);
    Kubectl.Result apply = kubectl.runWithInput(example, "apply", "-f", "-");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    assertThat(apply.stdout()).contains("replicapool.replicapool.dev/tracking created");

    Kubectl.Result get = kubectl.run("get", "rp", "-n", namespace);
    assertThat(get.exitCode()).as(get.output()).isZero();
    String header = get.stdout().lines().findFirst().orElse("");
    assertThat(header.split("\\s+"))
        .containsExactly("NAME", "READY", "REGISTERED", "ROUTABLE", "DEGRADED", "POLICY", "AGE");
    assertThat(get.stdout()).containsPattern("tracking\\s+.*RoundRobin");

    // The API server applied the schema's defaults.
    Kubectl.Result interval =
        kubectl.run(
            "get",
            "rp",
            "tracking",
            "-n",
            namespace,
            "-o",
            "jsonpath={.spec.routing.adaptive.ejectAfterFailures}"
                + " {.spec.routing.outlierDetection.maxEjectionPercent}"
                + " {.spec.dataPlaneGroups}");
    assertThat(interval.stdout()).isEqualTo("5 50 [\"default\"]");
  }

  @Test
  void explainShowsTheDescriptions() {
    Kubectl.Result explain = kubectl.run("explain", "replicapool.spec.healthCheck");
    assertThat(explain.exitCode()).as(explain.output()).isZero();
    // kubectl wraps descriptions: compare with the line breaks folded into spaces
    assertThat(explain.stdout().replaceAll("\\s+", " "))
        .contains("Active health check of every member: HTTP, gRPC or TCP")
        .contains("intervalMillis")
        .contains("Time between two probes of the same member. Default 1000. Milliseconds.")
        .contains("Default: the smaller of 500 and half of intervalMillis");
    Kubectl.Result tls = kubectl.run("explain", "replicapool.spec.upstreamTls");
    assertThat(tls.exitCode()).as(tls.output()).isZero();
    assertThat(tls.stdout())
        .contains("insecureSkipVerify")
        .contains("clientCertificateSecretName")
        .contains("Accept any certificate the members present");
    Kubectl.Result protocol = kubectl.run("explain", "replicapool.spec.appProtocol");
    assertThat(protocol.stdout()).contains("kubernetes.io/h2c");
    Kubectl.Result hash = kubectl.run("explain", "replicapool.spec.routing.consistentHash.cookie");
    assertThat(hash.exitCode()).as(hash.output()).isZero();
    assertThat(hash.stdout()).contains("ttlSeconds").contains("Max-Age=ttlSeconds");
    Kubectl.Result pool = kubectl.run("explain", "rp.status.conditions");
    // kubectl folds the text, so each name on its own.
    assertThat(pool.stdout())
        .contains("Ready (a request can reach a routable member")
        .contains("Accepted")
        .contains("ResolvedRefs")
        .contains("Programmed")
        .contains("DataPlaneSynced");
  }

  @Test
  void protocolFieldsApplyWithTheirDefaults() {
    String yaml =
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: %s, namespace: %s}
        spec:
          endpoints: [{host: 127.0.0.1, port: 8443}]
          appProtocol: https
          upstreamTls:
            ca: {configMapName: tracking-ca}
            serverName: tracking.internal
            clientCertificateSecretName: tracking-client
          healthCheck: {type: GRPC, grpcService: tracking.v1.Tracking, port: 9090, host: tracking}
        ---
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: plain, namespace: %s}
        spec:
          endpoints: [{host: 127.0.0.1, port: 8080}]
          healthCheck: {expectedStatuses: ["200-399", "418"]}
        """
            .formatted("tls-grpc", namespace, namespace);
    Kubectl.Result apply = kubectl.runWithInput(yaml, "apply", "-f", "-");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    Kubectl.Result tls =
        kubectl.run(
            "get",
            "rp",
            "tls-grpc",
            "-n",
            namespace,
            "-o",
            "jsonpath={.spec.upstreamTls.ca.key} {.spec.upstreamTls.insecureSkipVerify}"
                + " {.spec.healthCheck.type}");
    assertThat(tls.stdout()).isEqualTo("ca.crt false GRPC");
    Kubectl.Result plain =
        kubectl.run(
            "get",
            "rp",
            "plain",
            "-n",
            namespace,
            "-o",
            "jsonpath={.spec.appProtocol} {.spec.healthCheck.type} {.spec.healthCheck.expectedStatuses}");
    assertThat(plain.stdout()).isEqualTo("http HTTP [\"200-399\",\"418\"]");
  }

  @Test
  void requestPoliciesExampleAppliesWithItsDefaultsAndExplained() throws IOException {
    String example =
        Files.readString(Path.of("../examples/request-policies.yaml"))
            .replace("namespace: default", "namespace: " + namespace);
    Kubectl.Result apply = kubectl.runWithInput(example, "apply", "-f", "-");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    String bare =
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: bare-hedge, namespace: %s}
        spec:
          endpoints: [{host: 127.0.0.1, port: 8080}]
          routing:
            hedging: {delayPercentile: 95}
            maxRequestsPerMember: 8
            queue: {}
            idempotent: {methods: [PUT], grpcMethods: [/pkg.Things/Get, /grpc.health.v1.Health/*]}
        """
            .formatted(namespace);
    assertThat(kubectl.runWithInput(bare, "apply", "-f", "-").exitCode()).isZero();
    Kubectl.Result defaults =
        kubectl.run(
            "get",
            "rp",
            "bare-hedge",
            "-n",
            namespace,
            "-o",
            "jsonpath={.spec.routing.hedging.maxHedges} {.spec.routing.retry.budget.percent}"
                + " {.spec.routing.retry.budget.minRetriesPerSecond}"
                + " {.spec.routing.queue.maxPending} {.spec.routing.queue.timeoutMillis}");
    assertThat(defaults.stdout()).isEqualTo("1 20 10 1024 1000");
    // kubectl wraps descriptions: compare with the line breaks folded into spaces
    Kubectl.Result explain = kubectl.run("explain", "replicapool.spec.routing.hedging");
    assertThat(explain.stdout().replaceAll("\\s+", " "))
        .contains("delayPercentile")
        .contains("the first answer wins");
    Kubectl.Result idempotent = kubectl.run("explain", "replicapool.spec.routing.idempotent");
    assertThat(idempotent.stdout().replaceAll("\\s+", " "))
        .contains("grpcMethods")
        .contains("Default: GET, HEAD and OPTIONS only; no gRPC method");
    Kubectl.Result timeouts = kubectl.run("explain", "replicapool.spec.routing.timeouts");
    assertThat(timeouts.stdout().replaceAll("\\s+", " "))
        .contains("perTryMillis")
        .contains("grpc-timeout");
  }

  static Stream<Arguments> invalidPools() {
    String ok = "endpoints: [{host: 127.0.0.1, port: 8080}]";
    return Stream.of(
        Arguments.of("no member source", "port: 8080", "spec", "at least one member source"),
        Arguments.of(
            "timeout not below interval",
            ok + "\n  healthCheck: {intervalMillis: 200, timeoutMillis: 200}",
            "spec.healthCheck.timeoutMillis",
            "healthCheck.timeoutMillis must be below healthCheck.intervalMillis (default 1000)"),
        Arguments.of(
            "lease shorter than three renewals",
            "registration: {leaseDurationMillis: 500, renewIntervalMillis: 300}",
            "spec.registration.leaseDurationMillis",
            "at least three renewals"),
        Arguments.of(
            "port out of range",
            "port: 70000\n  " + ok,
            "spec.port",
            "less than or equal to 65535"),
        Arguments.of(
            "unknown routing policy",
            ok + "\n  routing: {policy: Random}",
            "spec.routing.policy",
            "Unsupported value: \"Random\""),
        Arguments.of(
            "min weight above 1",
            ok + "\n  routing: {adaptive: {minWeight: 1.5}}",
            "spec.routing.adaptive.minWeight",
            "less than or equal to 1"),
        Arguments.of(
            "degraded factor below 1",
            ok + "\n  routing: {adaptive: {degradedLatencyFactor: 0.5}}",
            "spec.routing.adaptive.degradedLatencyFactor",
            "greater than or equal to 1"),
        Arguments.of(
            "error rate above 1",
            ok + "\n  routing: {adaptive: {errorRateThreshold: 1.5}}",
            "spec.routing.adaptive.errorRateThreshold",
            "less than or equal to 1"),
        Arguments.of(
            "endpoint without host",
            "endpoints: [{port: 8080}]",
            "spec.endpoints[0].host",
            "Required value"),
        Arguments.of(
            "endpoint host not a hostname",
            "endpoints: [{host: 'not a host!', port: 8080}]",
            "spec.endpoints[0].host",
            "should match"),
        Arguments.of(
            "duplicate endpoints",
            "endpoints: [{host: a.example, port: 80}, {host: a.example, port: 80}]",
            "spec.endpoints",
            "must not repeat the same host and port"),
        Arguments.of(
            "selector without port",
            "selector: {matchLabels: {app: tracking}}",
            "spec.port",
            "port is required when selector picks Pods"),
        Arguments.of(
            "static endpoint without any port",
            "endpoints: [{host: a.example}]",
            "spec.endpoints",
            "every static endpoint needs a port"),
        Arguments.of(
            "route host not a lower-case DNS name",
            ok + "\n  route: {hosts: [Tracking_Shop]}",
            "spec.route.hosts[0]",
            "should match"),
        Arguments.of(
            "route port privileged",
            ok + "\n  route: {port: 80}",
            "spec.route.port",
            "greater than or equal to 1024"),
        Arguments.of(
            "target utilization zero",
            ok
                + "\n  capacity: {peakRequestsPerSecond: 100, perReplicaRequestsPerSecond: 10,"
                + " targetUtilization: 0}",
            "spec.capacity.targetUtilization",
            "targetUtilization must be above 0"),
        Arguments.of(
            "capacity without per-replica rate",
            ok + "\n  capacity: {peakRequestsPerSecond: 100}",
            "spec.capacity.perReplicaRequestsPerSecond",
            "Required value"),
        Arguments.of(
            "health path without leading slash",
            ok + "\n  healthCheck: {path: healthz}",
            "spec.healthCheck.path",
            "should match"),
        Arguments.of(
            "tls without secret name", ok + "\n  tls: {}", "spec.tls.secretName", "Required value"),
        Arguments.of(
            "probe interval too short",
            ok + "\n  healthCheck: {intervalMillis: 10, timeoutMillis: 5}",
            "spec.healthCheck.intervalMillis",
            "greater than or equal to 50"),
        Arguments.of(
            "ejection ceiling below base",
            ok
                + "\n  routing: {outlierDetection: {baseEjectionMillis: 5000, maxEjectionMillis: 100}}",
            "spec.routing.outlierDetection.maxEjectionMillis",
            "must not be below routing.outlierDetection.baseEjectionMillis (default 1000)"),
        Arguments.of(
            "upstream tls on a clear-text pool",
            ok + "\n  upstreamTls: {serverName: a.example}",
            "spec.upstreamTls",
            "upstreamTls needs appProtocol https or kubernetes.io/wss"),
        Arguments.of(
            "upstream tls on an h2c pool",
            ok + "\n  appProtocol: kubernetes.io/h2c\n  upstreamTls: {serverName: a.example}",
            "spec.upstreamTls",
            "upstreamTls needs appProtocol https or kubernetes.io/wss"),
        Arguments.of(
            "skipping verification with a ca",
            ok
                + "\n  appProtocol: https\n  upstreamTls: {insecureSkipVerify: true, ca:"
                + " {configMapName: tracking-ca}}",
            "spec.upstreamTls.insecureSkipVerify",
            "insecureSkipVerify trusts every certificate"),
        Arguments.of(
            "ca from a configmap and a secret",
            ok
                + "\n  appProtocol: kubernetes.io/wss\n  upstreamTls: {ca: {configMapName: a,"
                + " secretName: b}}",
            "spec.upstreamTls.ca",
            "exactly one of configMapName or secretName"),
        Arguments.of(
            "ca from nowhere",
            ok + "\n  appProtocol: https\n  upstreamTls: {ca: {key: ca.pem}}",
            "spec.upstreamTls.ca",
            "exactly one of configMapName or secretName"),
        Arguments.of(
            "grpc service on an http check",
            ok + "\n  healthCheck: {grpcService: tracking.v1.Tracking}",
            "spec.healthCheck.grpcService",
            "grpcService is only used by type GRPC"),
        Arguments.of(
            "expected statuses on a grpc check",
            ok + "\n  healthCheck: {type: GRPC, expectedStatuses: ['200']}",
            "spec.healthCheck.expectedStatuses",
            "expectedStatuses is only used by type HTTP"),
        Arguments.of(
            "host on a tcp check",
            ok + "\n  healthCheck: {type: TCP, host: tracking.example}",
            "spec.healthCheck.host",
            "a TCP check sends nothing"),
        Arguments.of(
            "hedging with two delays",
            ok + "\n  routing: {hedging: {delayMillis: 20, delayPercentile: 95}}",
            "spec.routing.hedging",
            "set exactly one of delayMillis and delayPercentile"),
        Arguments.of(
            "hedging without a delay",
            ok + "\n  routing: {hedging: {maxHedges: 2}}",
            "spec.routing.hedging",
            "set exactly one of delayMillis and delayPercentile"),
        Arguments.of(
            "an idempotent method in lower case",
            ok + "\n  routing: {idempotent: {methods: [put]}}",
            "spec.routing.idempotent.methods",
            "methods must be upper-case HTTP method tokens"),
        Arguments.of(
            "a gRPC method without its service",
            ok + "\n  routing: {idempotent: {grpcMethods: ['Check']}}",
            "spec.routing.idempotent.grpcMethods",
            "grpcMethods must be /package.Service/Method or /package.Service/*"),
        Arguments.of(
            "a gRPC method pattern with a partial wildcard",
            ok + "\n  routing: {idempotent: {grpcMethods: ['/pkg.Things/Get*']}}",
            "spec.routing.idempotent.grpcMethods",
            "grpcMethods must be /package.Service/Method or /package.Service/*"),
        Arguments.of(
            "a negative in-flight limit",
            ok + "\n  routing: {maxRequestsPerMember: -1}",
            "spec.routing.maxRequestsPerMember",
            "should be greater than or equal to 0"),
        Arguments.of(
            "status range ending below its start",
            ok + "\n  healthCheck: {expectedStatuses: ['399-200']}",
            "spec.healthCheck.expectedStatuses",
            "a status range must not end below its start"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPools")
  void invalidPoolIsRefusedWithFieldAndReason(
      String description, String spec, String field, String reason) {
    Kubectl.Result apply = RefusedPool.apply(kubectl, namespace, description, spec);
    assertThat(apply.stderr()).contains("is invalid").contains(field + ":").contains(reason);
  }
}
