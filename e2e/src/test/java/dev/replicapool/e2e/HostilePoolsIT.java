package dev.replicapool.e2e;

import static dev.replicapool.e2e.FaultSystem.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.io.IOException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * ReplicaPools the CRD schema accepts but the system cannot use, all in one namespace next to a
 * healthy pool. Each must be reported: a False condition with a reason that names the problem, and
 * a Warning Event; none may crash or stall the reconciler, which keeps reconciling the healthy pool
 * (a spec change there shows in its status within seconds) and logs no reconciler error. The
 * schema-refused ones are in crds/ (CrdOnApiServerIT, MoreInvalidPoolsIT).
 */
class HostilePoolsIT {
  static FaultSystem sys;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static ReplicaProcess member;
  static final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
  static AppenderBase<ILoggingEvent> appender;

  /** One pool the operator must refuse, and how it must say so. */
  record Bad(
      String name,
      Consumer<ReplicaPool> spec,
      String conditionType,
      String conditionReason,
      String messageContains,
      String eventReason) {}

  @BeforeAll
  static void start() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    appender =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent e) {
            if (e.getLevel().isGreaterOrEqual(Level.ERROR)
                && (e.getLoggerName().startsWith("io.javaoperatorsdk")
                    || e.getLoggerName().startsWith("dev.replicapool.operator"))) {
              errors.add(e.getLoggerName() + ": " + e.getFormattedMessage());
            }
          }
        };
    appender.setContext(ctx);
    appender.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);

    sys = new FaultSystem("hostile-pools");
    op = sys.startOperator();
    dp = sys.startDataPlane("dp-pools", op.controlPlanePort());
    member = sys.replica("c1");
  }

  @AfterAll
  static void stop() {
    ((LoggerContext) LoggerFactory.getILoggerFactory())
        .getLogger(Logger.ROOT_LOGGER_NAME)
        .detachAppender(appender);
    sys.close();
  }

  static void lease(String pool, String name, Map<String, String> annotations) {
    sys.client
        .leases()
        .inNamespace(sys.namespace)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(LeaseConventions.POOL_LABEL, pool)
                .addToAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(name)
                .withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now())
                .endSpec()
                .build())
        .create();
  }

  static Consumer<ReplicaPool> tls(String secret) {
    return p -> {
      p.getSpec().tls = new Tls();
      p.getSpec().tls.secretName = secret;
    };
  }

  static Consumer<ReplicaPool> selector(LabelSelectorRequirement... expressions) {
    return p -> {
      p.getSpec().endpoints = null;
      p.getSpec().port = 8080;
      p.getSpec().selector =
          new LabelSelectorBuilder().withMatchExpressions(List.of(expressions)).build();
    };
  }

  static Consumer<ReplicaPool> registration() {
    return p -> {
      p.getSpec().endpoints = null;
      p.getSpec().registration = new Registration();
    };
  }

  static LabelSelectorRequirement req(String key, String op, String... values) {
    LabelSelectorRequirement r = new LabelSelectorRequirement();
    r.setKey(key);
    r.setOperator(op);
    r.setValues(values.length == 0 ? null : List.of(values));
    return r;
  }

  @Test
  void poolsTheOperatorCannotUseAreReportedAndTheOthersKeepReconciling() {
    sys.createTlsSecret(
        "opaque-tls",
        "Opaque",
        FaultSystem.tlsResource("a-example.crt"),
        FaultSystem.tlsResource("a-example.key"));
    sys.createTlsSecret("garbage-tls", "kubernetes.io/tls", "not a certificate", "not a key");
    sys.createTlsSecret(
        "mismatched-tls",
        "kubernetes.io/tls",
        FaultSystem.tlsResource("b-example.crt"),
        FaultSystem.tlsResource("a-example.key"));
    lease("lease-no-address", "lease-no-address-r1", Map.of());
    lease(
        "lease-bad-address",
        "lease-bad-address-r1",
        Map.of(LeaseConventions.ADDRESS_ANNOTATION, "no-port-here"));
    int takenPort = ReplicaProcess.freePort("127.0.0.1");
    // A Pod in the namespace, so that every selector is really evaluated against labels.
    sys.client
        .pods()
        .inNamespace(sys.namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("bystander")
                .addToLabels("app", "bystander")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("example.invalid/none")
                .endContainer()
                .endSpec()
                .build())
        .create();

    List<Bad> bad = new ArrayList<>();
    bad.add(
        new Bad(
            "tls-secret-missing",
            tls("nope"),
            "ConfigurationValid",
            "Invalid",
            "TLS Secret nope not found",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "tls-secret-not-type-tls",
            tls("opaque-tls"),
            "ConfigurationValid",
            "Invalid",
            "it must be of type kubernetes.io/tls",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "tls-secret-not-pem",
            tls("garbage-tls"),
            "ConfigurationValid",
            "Invalid",
            "needs PEM tls.crt and tls.key",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "tls-key-does-not-match",
            tls("mismatched-tls"),
            "DataPlaneSynced",
            "Rejected",
            "tls",
            "DataPlaneRejected"));
    bad.add(
        new Bad(
            "selector-matches-nothing",
            p -> {
              p.getSpec().endpoints = null;
              p.getSpec().port = 8080;
              p.getSpec().selector =
                  new LabelSelectorBuilder().addToMatchLabels("app", "ghost").build();
            },
            "Ready",
            "NoMembers",
            "selector app=ghost matches no Pods",
            "SelectorMatchesNothing"));
    bad.add(
        new Bad(
            "selector-unknown-operator",
            selector(req("app", "Resembles", "x")),
            "ConfigurationValid",
            "Invalid",
            "operator Resembles is not one of In, NotIn, Exists, DoesNotExist",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "selector-in-without-values",
            selector(req("app", "In")),
            "ConfigurationValid",
            "Invalid",
            "operator In needs at least one value",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "selector-without-operator",
            selector(req("app", null)),
            "ConfigurationValid",
            "Invalid",
            "is not one of In, NotIn",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "lease-no-address",
            registration(),
            "ConfigurationValid",
            "Invalid",
            "has no replicapool.dev/address annotation",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "lease-bad-address",
            registration(),
            "ConfigurationValid",
            "Invalid",
            "has an invalid address no-port-here",
            "InvalidConfiguration"));
    bad.add(
        new Bad(
            "route-port-of-the-data-plane",
            p -> p.getSpec().route.port = dp.adminPort(),
            "DataPlaneSynced",
            "Rejected",
            "is one of the data plane's own ports",
            "DataPlaneRejected"));
    bad.add(
        new Bad(
            "route-host-of-another-pool",
            p -> p.getSpec().route.hosts = List.of("canary.local"),
            "DataPlaneSynced",
            "Rejected",
            "host canary.local is already routed to pool",
            "DataPlaneRejected"));
    bad.add(
        new Bad(
            "route-port-in-use",
            p -> p.getSpec().route.port = takenPort,
            "DataPlaneSynced",
            "Rejected",
            "cannot listen on port " + takenPort,
            "DataPlaneRejected"));
    bad.add(
        new Bad(
            "member-does-not-resolve",
            p -> p.getSpec().endpoints = List.of(new StaticEndpoint("no-such-host.invalid", 80)),
            "Ready",
            "NoRoutableEndpoints",
            "none of 1 members is routable",
            "MemberUnhealthy"));

    // The healthy pool first, so that the host and port conflicts hit the bad ones.
    sys.create(sys.pool("canary", List.of(member.address())));
    sys.awaitReadyAndSynced("canary", Duration.ofSeconds(30));

    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(takenPort, 1, java.net.InetAddress.getLoopbackAddress())) {
      long start = System.nanoTime();
      for (Bad b : bad) {
        ReplicaPool p = sys.pool(b.name(), List.of(member.address()));
        b.spec().accept(p);
        sys.create(p);
      }
      List<String> table = new ArrayList<>();
      for (Bad b : bad) {
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .untilAsserted(
                () -> {
                  ReplicaPool p = sys.pool(b.name()).get();
                  Condition c = condition(p, b.conditionType());
                  assertThat(c).as("%s: %s", b.name(), b.conditionType()).isNotNull();
                  assertThat(c.getStatus()).as("%s: %s", b.name(), c).isEqualTo("False");
                  assertThat(c.getReason()).as(b.name()).isEqualTo(b.conditionReason());
                  assertThat(c.getMessage()).as(b.name()).contains(b.messageContains());
                  assertThat(p.getStatus().observedGeneration)
                      .isEqualTo(p.getMetadata().getGeneration());
                  assertThat(sys.events(b.name()))
                      .as("%s: Warning Event %s", b.name(), b.eventReason())
                      .anySatisfy(
                          e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getReason()).isEqualTo(b.eventReason());
                          });
                });
        Condition c = condition(sys.pool(b.name()).get(), b.conditionType());
        table.add(
            String.format(
                "%-30s %s=%s %s: %s; Event %s",
                b.name(),
                b.conditionType(),
                c.getStatus(),
                c.getReason(),
                c.getMessage(),
                b.eventReason()));
      }
      long reportedMillis = (System.nanoTime() - start) / 1_000_000;

      // The reconciler still serves the healthy pool: a spec change shows in its status at once.
      long changedAt = System.nanoTime();
      dev.replicapool.testing.ReplicaPools.editSpec(
          sys.pool("canary"),
          p -> {
            p.getSpec().endpoints.add(new StaticEndpoint("localhost", member.port()));
            return p;
          });
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50))
          .untilAsserted(
              () -> {
                ReplicaPool p = sys.pool("canary").get();
                assertThat(p.getStatus().observedGeneration)
                    .isEqualTo(p.getMetadata().getGeneration());
                assertThat(p.getStatus().registered).isEqualTo(2);
                assertThat(FaultSystem.conditionStatus(p, "Ready")).isEqualTo("True");
              });
      long canaryMillis = (System.nanoTime() - changedAt) / 1_000_000;
      assertThat(sys.httpGet(dp.trafficPort(), "canary.local", "/track/1").status()).isEqualTo(200);

      System.out.printf(
          "FIGURE invalid-pools (accepted by the schema, refused by the operator): %d pools, all"
              + " reported within %d ms; the healthy pool's spec change reconciled in %d ms;"
              + " reconciler errors logged: %d%n",
          bad.size(), reportedMillis, canaryMillis, errors.size());
      table.forEach(l -> System.out.println("FIGURE   " + l));
      assertThat(errors).as("reconciler errors").isEmpty();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
