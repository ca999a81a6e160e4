package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaPools;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * More ReplicaPools the API server must refuse, each wrong in a way {@link CrdOnApiServerIT} does
 * not cover: bounds of every number, list sizes, types, names, unknown fields. Each refusal names
 * the field and the reason, and nothing is stored. Pools the schema accepts but the operator cannot
 * use are in e2e (HostilePoolsIT).
 */
class MoreInvalidPoolsIT extends ApiServerTestBase {
  static String namespace;

  @BeforeAll
  static void installCrd() {
    namespace = apiServer.createNamespace(client, "crd-more");
    ReplicaPools.installCrd(kubectl, Path.of("../crds/"));
  }

  static Stream<Arguments> invalidPools() {
    String ok = "endpoints: [{host: 127.0.0.1, port: 8080}]";
    String many =
        IntStream.range(0, 257)
            .mapToObj(i -> "{host: h" + i + ".example, port: 80}")
            .collect(Collectors.joining(", ", "endpoints: [", "]"));
    String hosts =
        IntStream.range(0, 33)
            .mapToObj(i -> "h" + i + ".example")
            .collect(Collectors.joining(", ", "[", "]"));
    return Stream.of(
        Arguments.of(
            "endpoint port zero",
            "endpoints: [{host: a.example, port: 0}]",
            "spec.endpoints[0].port",
            "greater than or equal to 1"),
        Arguments.of(
            "more than 256 endpoints", many, "spec.endpoints", "must have at most 256 items"),
        Arguments.of(
            "endpoint host longer than 253",
            "endpoints: [{host: " + "a".repeat(254) + ", port: 80}]",
            "spec.endpoints[0].host",
            "may not be more than 253"),
        Arguments.of(
            "port given as a string",
            "port: http\n  " + ok,
            "spec.port",
            "must be of type integer"),
        Arguments.of(
            "empty endpoint list as the only source",
            "endpoints: []",
            "spec",
            "at least one member source"),
        Arguments.of(
            "route port above 65535",
            ok + "\n  route: {port: 70000}",
            "spec.route.port",
            "less than or equal to 65535"),
        Arguments.of(
            "more than 32 route hosts",
            ok + "\n  route: {hosts: " + hosts + "}",
            "spec.route.hosts",
            "must have at most 32 items"),
        Arguments.of(
            "wildcard inside a route host",
            ok + "\n  route: {hosts: ['a.*.example']}",
            "spec.route.hosts[0]",
            "should match"),
        Arguments.of(
            "probe timeout below 10 ms",
            ok + "\n  healthCheck: {intervalMillis: 100, timeoutMillis: 5}",
            "spec.healthCheck.timeoutMillis",
            "greater than or equal to 10"),
        Arguments.of(
            "probe interval above 5 minutes",
            ok + "\n  healthCheck: {intervalMillis: 300001, timeoutMillis: 500}",
            "spec.healthCheck.intervalMillis",
            "less than or equal to 300000"),
        Arguments.of(
            "unhealthy threshold zero",
            ok + "\n  healthCheck: {unhealthyThreshold: 0}",
            "spec.healthCheck.unhealthyThreshold",
            "greater than or equal to 1"),
        Arguments.of(
            "healthy threshold above 100",
            ok + "\n  healthCheck: {healthyThreshold: 101}",
            "spec.healthCheck.healthyThreshold",
            "less than or equal to 100"),
        Arguments.of(
            "health check switch not a boolean",
            ok + "\n  healthCheck: {enabled: 'yes'}",
            "spec.healthCheck.enabled",
            "must be of type boolean"),
        Arguments.of(
            "lease below 100 ms",
            "registration: {leaseDurationMillis: 60, renewIntervalMillis: 20}",
            "spec.registration.leaseDurationMillis",
            "greater than or equal to 100"),
        Arguments.of(
            "renewal interval below 10 ms",
            "registration: {leaseDurationMillis: 100, renewIntervalMillis: 5}",
            "spec.registration.renewIntervalMillis",
            "greater than or equal to 10"),
        Arguments.of(
            "ejection percent above 100",
            ok + "\n  routing: {outlierDetection: {maxEjectionPercent: 101}}",
            "spec.routing.outlierDetection.maxEjectionPercent",
            "less than or equal to 100"),
        Arguments.of(
            "negative consecutive failures",
            ok + "\n  routing: {outlierDetection: {consecutiveFailures: -1}}",
            "spec.routing.outlierDetection.consecutiveFailures",
            "greater than or equal to 0"),
        Arguments.of(
            "more than 5 connect-failure retries",
            ok + "\n  routing: {retry: {connectFailureRetries: 6}}",
            "spec.routing.retry.connectFailureRetries",
            "less than or equal to 5"),
        Arguments.of(
            "baseline latency zero",
            ok + "\n  routing: {adaptive: {baselineLatencyMillis: 0}}",
            "spec.routing.adaptive.baselineLatencyMillis",
            "greater than or equal to 1"),
        Arguments.of(
            "negative recovery hold",
            ok + "\n  routing: {adaptive: {recoverAfterMillis: -1}}",
            "spec.routing.adaptive.recoverAfterMillis",
            "greater than or equal to 0"),
        Arguments.of(
            "consistent hashing without a key",
            ok + "\n  routing: {policy: ConsistentHash}",
            "spec.routing.consistentHash",
            "policy ConsistentHash needs consistentHash"),
        Arguments.of(
            "consistent hashing on a header and a cookie",
            ok
                + "\n  routing: {policy: ConsistentHash, consistentHash: {header: x-user,"
                + " cookie: {name: sid}}}",
            "spec.routing.consistentHash",
            "exactly one of header, cookie or sourceIP: true"),
        Arguments.of(
            "consistent hashing on sourceIP: false alone",
            ok + "\n  routing: {policy: ConsistentHash, consistentHash: {sourceIP: false}}",
            "spec.routing.consistentHash",
            "exactly one of header, cookie or sourceIP: true"),
        Arguments.of(
            "hash cookie ttl zero",
            ok + "\n  routing: {consistentHash: {cookie: {name: sid, ttlSeconds: 0}}}",
            "spec.routing.consistentHash.cookie.ttlSeconds",
            "greater than or equal to 1"),
        Arguments.of(
            "hash algorithm unknown",
            ok + "\n  routing: {consistentHash: {sourceIP: true, algorithm: Rendezvous}}",
            "spec.routing.consistentHash.algorithm",
            "Unsupported value: \"Rendezvous\""),
        Arguments.of(
            "policy in the wrong case",
            ok + "\n  routing: {policy: roundrobin}",
            "spec.routing.policy",
            "Unsupported value: \"roundrobin\""),
        Arguments.of(
            "TLS Secret name not a DNS name",
            ok + "\n  tls: {secretName: Bad_Name}",
            "spec.tls.secretName",
            "should match"),
        Arguments.of(
            "per-replica rate zero",
            ok + "\n  capacity: {peakRequestsPerSecond: 100, perReplicaRequestsPerSecond: 0}",
            "spec.capacity.perReplicaRequestsPerSecond",
            "perReplicaRequestsPerSecond must be above 0"),
        Arguments.of(
            "negative peak rate",
            ok + "\n  capacity: {peakRequestsPerSecond: -1, perReplicaRequestsPerSecond: 10}",
            "spec.capacity.peakRequestsPerSecond",
            "greater than or equal to 0"),
        Arguments.of(
            "target utilization above 1",
            ok
                + "\n  capacity: {peakRequestsPerSecond: 100, perReplicaRequestsPerSecond: 10,"
                + " targetUtilization: 1.5}",
            "spec.capacity.targetUtilization",
            "less than or equal to 1"),
        Arguments.of(
            "empty data-plane group list",
            ok + "\n  dataPlaneGroups: []",
            "spec.dataPlaneGroups",
            "should have at least 1 items"),
        Arguments.of(
            "data-plane group not a DNS label",
            ok + "\n  dataPlaneGroups: [edge, Edge_1]",
            "spec.dataPlaneGroups[1]",
            "should match"),
        Arguments.of(
            "data-plane group longer than 63",
            ok + "\n  dataPlaneGroups: [" + "a".repeat(64) + "]",
            "spec.dataPlaneGroups[0]",
            "may not be more than 63"),
        Arguments.of(
            "data-plane group repeated",
            ok + "\n  dataPlaneGroups: [edge, edge]",
            "spec.dataPlaneGroups",
            "must not repeat a group"),
        Arguments.of(
            "unknown app protocol",
            ok + "\n  appProtocol: grpc",
            "spec.appProtocol",
            "Unsupported value: \"grpc\""),
        Arguments.of(
            "health check type in lower case",
            ok + "\n  healthCheck: {type: grpc}",
            "spec.healthCheck.type",
            "Unsupported value: \"grpc\""),
        Arguments.of(
            "health check port zero",
            ok + "\n  healthCheck: {port: 0}",
            "spec.healthCheck.port",
            "greater than or equal to 1"),
        Arguments.of(
            "expected status not a status code",
            ok + "\n  healthCheck: {expectedStatuses: ['2xx']}",
            "spec.healthCheck.expectedStatuses[0]",
            "should match"),
        Arguments.of(
            "empty expected statuses",
            ok + "\n  healthCheck: {expectedStatuses: []}",
            "spec.healthCheck.expectedStatuses",
            "should have at least 1 items"),
        Arguments.of(
            "health check host with a path",
            ok + "\n  healthCheck: {host: 'a.example/x'}",
            "spec.healthCheck.host",
            "should match"),
        Arguments.of(
            "upstream server name not a DNS name",
            ok + "\n  appProtocol: https\n  upstreamTls: {serverName: 'Not_A_Name'}",
            "spec.upstreamTls.serverName",
            "should match"),
        Arguments.of(
            "client certificate secret not a DNS name",
            ok + "\n  appProtocol: https\n  upstreamTls: {clientCertificateSecretName: Bad_Name}",
            "spec.upstreamTls.clientCertificateSecretName",
            "should match"),
        Arguments.of(
            "startup grace shorter than the interval",
            ok
                + "\n  healthCheck: {intervalMillis: 1000, timeoutMillis: 500, startupGraceMillis: 500}",
            "spec.healthCheck.startupGraceMillis",
            "healthCheck.startupGraceMillis must be at least healthCheck.intervalMillis"
                + " (default 1000)"),
        Arguments.of(
            "saturation threshold zero",
            ok + "\n  healthCheck: {degradedUtilization: 0}",
            "spec.healthCheck.degradedUtilization",
            "healthCheck.degradedUtilization is a fraction of capacity: above 0 and at most 1"),
        Arguments.of(
            "saturation threshold above 1",
            ok + "\n  healthCheck: {degradedUtilization: 1.5}",
            "spec.healthCheck.degradedUtilization",
            "healthCheck.degradedUtilization is a fraction of capacity: above 0 and at most 1"),
        Arguments.of(
            "slow start without a window",
            ok + "\n  routing: {slowStart: {aggression: 2.0}}",
            "spec.routing.slowStart.windowMillis",
            "Required value"),
        Arguments.of(
            "slow start aggression zero",
            ok + "\n  routing: {slowStart: {windowMillis: 1000, aggression: 0}}",
            "spec.routing.slowStart.aggression",
            "aggression must be at least 0.1"),
        Arguments.of(
            "slow start floor above 100 %",
            ok + "\n  routing: {slowStart: {windowMillis: 1000, minWeightPercent: 101}}",
            "spec.routing.slowStart.minWeightPercent",
            "less than or equal to 100"),
        Arguments.of(
            "panic threshold above 100 %",
            ok + "\n  routing: {panicThresholdPercent: 150}",
            "spec.routing.panicThresholdPercent",
            "less than or equal to 100"),
        Arguments.of("unknown field", ok + "\n  replicas: 3", "spec.replicas", "unknown field"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPools")
  void invalidPoolIsRefusedWithFieldAndReason(
      String description, String spec, String field, String reason) {
    Kubectl.Result apply = RefusedPool.apply(kubectl, namespace, description, spec);
    System.out.printf("FIGURE invalid pool %-40s %s%n", description, apply.stderr().strip());
    assertThat(apply.stderr()).contains(field).contains(reason);
  }
}
