package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ready means a request can reach a routable member. An operator, a real data plane and real
 * replicas on a real API server: a normal pool becomes Ready and {@code kubectl wait
 * --for=condition=Ready} returns; a pool whose host is another pool's, one with neither hosts nor a
 * port, one whose TLS Secret is missing and one whose members are all down are Ready False with the
 * reason of what stops requests, and the real kubectl's wait times out on each.
 */
class ReadyConditionsIT {
  static SystemHarness h;
  static ReplicaProcess member;

  @BeforeAll
  static void start() {
    h = new SystemHarness("ready");
    member = h.replicas("r1").get(0);
    // The normal pool, whose host the clashing pool asks for too.
    h.client.resource(h.pool("tracking", List.of(member))).create();
    h.awaitReadyAndSynced("tracking");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static Kubectl.Result waitReady(String pool, String timeout) {
    return h.kubectl.run(
        "wait", "--for=condition=Ready", "--timeout=" + timeout, "rp/" + pool, "-n", h.namespace);
  }

  /** kubectl's wait gives up: the pool is not Ready, and stays so for 3 s. */
  static void assertWaitTimesOut(String pool) {
    Kubectl.Result wait = waitReady(pool, "3s");
    assertThat(wait.exitCode()).as(wait.output()).isNotZero();
    assertThat(wait.output()).contains("timed out");
  }

  /** Waits until Ready is False with {@code reason} and {@code type} is False with it too. */
  static Condition awaitNotReady(String pool, String type, String reason) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool(pool).get();
              assertThat(ReplicaPools.conditionStatus(p, type)).as(type).isEqualTo("False");
              assertThat(ReplicaPools.condition(p, type).orElseThrow().getReason())
                  .isEqualTo(reason);
              assertThat(ReplicaPools.conditionStatus(p, "Ready")).isEqualTo("False");
              assertThat(ReplicaPools.condition(p, "Ready").orElseThrow().getReason())
                  .isEqualTo(reason);
            });
    return ReplicaPools.condition(h.pool(pool).get(), "Ready").orElseThrow();
  }

  @Test
  void aNormalPoolIsReadyAndKubectlWaitReturns() {
    Kubectl.Result wait = waitReady("tracking", "30s");
    assertThat(wait.exitCode()).as(wait.output()).isZero();
    ReplicaPool p = h.pool("tracking").get();
    for (String type : List.of("Accepted", "ResolvedRefs", "Programmed", "Ready")) {
      assertThat(ReplicaPools.conditionStatus(p, type)).as(type).isEqualTo("True");
    }
    assertThat(ReplicaPools.conditionMessage(p, "Programmed"))
        .startsWith("1 of 1 data planes applied version");
    assertThat(h.get("tracking.local", "/track/1").status()).isEqualTo(200);
  }

  @Test
  void aPoolWhoseHostIsAnotherPoolsIsNotReady() {
    ReplicaPool clash = h.pool("clash", List.of(member));
    clash.getSpec().route.hosts = List.of("tracking.local");
    h.client.resource(clash).create();

    Condition ready = awaitNotReady("clash", "Programmed", "Rejected");

    assertThat(ready.getMessage())
        .contains("host tracking.local is already routed to pool " + h.namespace + "/tracking");
    assertThat(ReplicaPools.conditionStatus(h.pool("clash").get(), "Accepted")).isEqualTo("True");
    assertWaitTimesOut("clash");
    // The pool that owns the host is untouched.
    assertThat(h.get("tracking.local", "/track/2").status()).isEqualTo(200);
  }

  @Test
  void aPoolWithNeitherHostsNorPortIsNotReady() {
    ReplicaPool unrouted = h.pool("unrouted", List.of(member));
    unrouted.getSpec().route = null;
    h.client.resource(unrouted).create();

    Condition ready = awaitNotReady("unrouted", "Accepted", "NoRoute");

    assertThat(ready.getMessage()).contains("neither spec.route.hosts nor spec.route.port is set");
    assertWaitTimesOut("unrouted");
  }

  @Test
  void aPoolWhoseTlsSecretIsMissingIsNotReady() {
    ReplicaPool secure = h.pool("secure", List.of(member));
    secure.getSpec().tls = new Tls();
    secure.getSpec().tls.secretName = "secure-tls";
    h.client.resource(secure).create();

    Condition ready = awaitNotReady("secure", "ResolvedRefs", "InvalidCertificateRef");

    assertThat(ready.getMessage()).contains("TLS Secret secure-tls not found");
    assertWaitTimesOut("secure");
  }

  @Test
  void aPoolWhoseMembersAreAllDownIsNotReady() {
    ReplicaProcess doomed = h.replicas("doomed").get(0);
    h.client.resource(h.pool("down", List.of(doomed))).create();
    h.awaitReadyAndSynced("down");

    doomed.kill();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("down").get();
              assertThat(ReplicaPools.conditionStatus(p, "Ready")).isEqualTo("False");
              assertThat(ReplicaPools.condition(p, "Ready").orElseThrow().getReason())
                  .isEqualTo("NoRoutableEndpoints");
              // Everything else still holds: only the members stop requests.
              assertThat(ReplicaPools.conditionStatus(p, "Programmed")).isEqualTo("True");
            });
    assertThat(ReplicaPools.conditionMessage(h.pool("down").get(), "Ready"))
        .isEqualTo("none of 1 members is routable");
    assertWaitTimesOut("down");
  }
}
