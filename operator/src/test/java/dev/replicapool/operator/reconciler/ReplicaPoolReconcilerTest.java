package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.MemberKey;
import dev.replicapool.operator.probing.ProbeResult;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.PushSpans;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.status.Conditions;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.StatusBuilder.DataPlaneSync;
import dev.replicapool.operator.tracing.OperatorTracing;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaPools;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconciler called as JOSDK calls it, one {@code reconcile(pool, context)} at a time, with the
 * pool's objects in a real API server; each test asserts on the status and the returned control.
 * The clock is the test's: status throttling and Lease expiry move only when the test says so.
 */
class ReplicaPoolReconcilerTest {
  static KubernetesClient client;
  static Vertx vertx;

  final StepClock clock = new StepClock(System.currentTimeMillis());
  final SwitchableInputs inputs = new SwitchableInputs(new ApiServerInputs(client));
  String namespace;
  Prober prober;
  ControlPlaneServer server;
  SnapshotPublisher publisher;
  DataPlaneSync dataPlanes;
  ReplicaPoolReconciler reconciler;

  /** The API server's objects, or the failure a test wants the next read to throw. */
  static final class SwitchableInputs implements PoolInputs {
    final PoolInputs delegate;
    RuntimeException failure;

    SwitchableInputs(PoolInputs delegate) {
      this.delegate = delegate;
    }

    @Override
    public List<Pod> pods(String namespace) {
      if (failure != null) {
        throw failure;
      }
      return delegate.pods(namespace);
    }

    @Override
    public List<Lease> leases(String namespace, String pool) {
      return delegate.leases(namespace, pool);
    }

    @Override
    public Secret tlsSecret(String namespace, String name) {
      return delegate.tlsSecret(namespace, name);
    }

    @Override
    public ConfigMap configMap(String namespace, String name) {
      return delegate.configMap(namespace, name);
    }
  }

  InMemorySpanExporter spans;
  OperatorTracing tracing;

  @BeforeAll
  static void apiServer() {
    client = LocalKubeApiServer.get().newClient();
    // Some tests store their pool: a failed reconcile asks the API server whether it still exists.
    ReplicaPools.installCrd(
        new Kubectl(LocalKubeApiServer.get().kubeConfigFile()), java.nio.file.Path.of("../crds/"));
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void closeAll() {
    vertx.close().await();
    client.close();
  }

  @BeforeEach
  void newReconciler() {
    namespace = LocalKubeApiServer.get().createNamespace(client, "reconciler");
    prober = new Prober(vertx);
    server = new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, "t"));
    spans = InMemorySpanExporter.create();
    tracing = OperatorTracing.exportingTo(SimpleSpanProcessor.create(spans), 1.0);
    publisher = new SnapshotPublisher(server, new PushSpans(tracing.tracer()));
    dataPlanes = new DataPlaneSync(1, 1, 1, List.of());
    reconciler =
        new ReplicaPoolReconciler(
            clock,
            prober,
            publisher,
            name -> dataPlanes,
            new EventRecorder(client, clock::millis, 1_000, 1),
            new OperatorMetrics(),
            tracing.tracer(),
            inputs);
  }

  @AfterEach
  void closeProber() {
    prober.close();
    tracing.close();
  }

  ReplicaPool pool(String name, Consumer<ReplicaPoolSpec> spec) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(namespace);
    pool.getMetadata().setGeneration(1L);
    pool.setSpec(new ReplicaPoolSpec());
    // Reachable unless a test says otherwise: routed by Host, served by one data plane.
    pool.getSpec().route = new Route();
    pool.getSpec().route.hosts = List.of(name + ".local");
    spec.accept(pool.getSpec());
    return pool;
  }

  /** Two static members, not probed: Healthy from the start. */
  ReplicaPool staticPool(String name) {
    return pool(
        name,
        s -> {
          s.endpoints =
              List.of(new StaticEndpoint("127.0.0.1", 9001), new StaticEndpoint("127.0.0.1", 9002));
          s.healthCheck.enabled = false;
        });
  }

  /** Members are the Pods labelled app=NAME, on port 8080. */
  ReplicaPool selectorPool(String name) {
    return pool(
        name,
        s -> {
          s.selector = new LabelSelectorBuilder().addToMatchLabels("app", name).build();
          s.port = 8080;
        });
  }

  UpdateControl<ReplicaPool> reconcile(ReplicaPool pool) {
    return reconciler.reconcile(pool, TestContext.of(client, pool));
  }

  /** The status a patch wrote, now on the pool as the informer would deliver it. */
  static ReplicaPoolStatus written(ReplicaPool pool, UpdateControl<ReplicaPool> control) {
    assertThat(control.isPatchStatus()).as("a status patch").isTrue();
    ReplicaPoolStatus status = control.getResource().orElseThrow().getStatus();
    pool.setStatus(status);
    return status;
  }

  static Condition condition(ReplicaPoolStatus status, String type) {
    return Conditions.find(status.conditions, type);
  }

  String name(ReplicaPool pool) {
    return namespace + "/" + pool.getMetadata().getName();
  }

  List<String> events(String reason) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(Event::getMessage)
        .toList();
  }

  @Test
  void theObservedPoolIsPublishedAndWrittenAsAStatusPatchOfAFreshObject() {
    ReplicaPool pool = staticPool("web");

    UpdateControl<ReplicaPool> control = reconcile(pool);

    ReplicaPool patch = control.getResource().orElseThrow();
    assertThat(patch.getMetadata().getName()).isEqualTo("web");
    assertThat(patch.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(patch.getMetadata().getResourceVersion()).isNull();
    ReplicaPoolStatus status = written(pool, control);
    assertThat(status.registered).isEqualTo(2);
    assertThat(status.routable).isEqualTo(2);
    assertThat(status.endpoints)
        .extracting(e -> e.address)
        .containsExactly("127.0.0.1:9001", "127.0.0.1:9002");
    assertThat(condition(status, Conditions.READY).getMessage())
        .isEqualTo("2 of 2 members routable");
    assertThat(condition(status, Conditions.DATA_PLANE_SYNCED).getStatus()).isEqualTo("True");
    assertThat(condition(status, Conditions.PROGRAMMED).getStatus()).isEqualTo("True");
    assertThat(condition(status, Conditions.CONFIGURATION_VALID).getStatus()).isEqualTo("True");
    assertThat(status.snapshotVersion).isEqualTo(publisher.version(name(pool))).isPositive();
    assertThat(control.getScheduleDelay()).contains(StatusWriter.REFRESH_MILLIS);
    assertThat(prober.tracked()).isEmpty();
  }

  @Test
  void aReconcileIsASpanAndTheSnapshotItSentIsItsChildPushSpan() {
    ReplicaPool pool = staticPool("traced");
    written(pool, reconcile(pool));
    reconcile(pool); // unchanged: a reconcile span, no push

    tracing.flush();
    List<SpanData> finished = spans.getFinishedSpanItems();
    List<SpanData> reconciles =
        finished.stream().filter(s -> s.getName().equals("reconcile")).toList();
    assertThat(reconciles).hasSize(2);
    assertThat(reconciles)
        .allSatisfy(
            s ->
                assertThat(s.getAttributes().get(AttributeKey.stringKey("replicapool.pool")))
                    .isEqualTo(name(pool)));
    long version = server.latestVersion(name(pool));
    assertThat(
            reconciles
                .get(0)
                .getAttributes()
                .get(AttributeKey.longKey("replicapool.snapshot.version")))
        .isEqualTo(version);
    // No data plane is connected, so the push has not converged: it is still open (not exported).
    assertThat(finished).noneMatch(s -> s.getName().equals("push"));
    publisher.remove(name(pool));
    tracing.flush();
    SpanData push =
        spans.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("push"))
            .findFirst()
            .orElseThrow();
    assertThat(push.getParentSpanId()).isEqualTo(reconciles.get(0).getSpanId());
    assertThat(push.getTraceId()).isEqualTo(reconciles.get(0).getTraceId());
    assertThat(push.getAttributes().get(AttributeKey.stringKey("replicapool.push.outcome")))
        .isEqualTo("removed");
    assertThat(push.getAttributes().get(AttributeKey.longKey("replicapool.snapshot.version")))
        .isEqualTo(version);
  }

  @Test
  void anUnchangedPoolIsNeitherWrittenNorPublishedAgain() {
    ReplicaPool pool = staticPool("web");
    written(pool, reconcile(pool));
    long version = server.latestVersion(name(pool));
    clock.step(60_000);

    UpdateControl<ReplicaPool> control = reconcile(pool);

    assertThat(control.isNoUpdate()).isTrue();
    assertThat(control.getScheduleDelay()).contains(StatusWriter.REFRESH_MILLIS);
    assertThat(server.latestVersion(name(pool))).isEqualTo(version);
  }

  @Test
  void driftWaitsForTheRefreshWhileAChangeIsWrittenAtOnce() {
    ReplicaPool pool = staticPool("web");
    dataPlanes = new DataPlaneSync(2, 1, 7, List.of());
    written(pool, reconcile(pool));

    clock.step(1_000);
    dataPlanes = new DataPlaneSync(2, 1, 8, List.of()); // only a figure in a message changes
    UpdateControl<ReplicaPool> drift = reconcile(pool);
    assertThat(drift.isNoUpdate()).isTrue();
    // The reconcile comes back for the refresh; the drift waits for its own, slower one.
    assertThat(drift.getScheduleDelay()).contains(StatusWriter.REFRESH_MILLIS);

    pool.getSpec().endpoints = List.of(new StaticEndpoint("127.0.0.1", 9001));
    ReplicaPoolStatus change = written(pool, reconcile(pool));
    assertThat(change.registered).isEqualTo(1);
    assertThat(condition(change, Conditions.DATA_PLANE_SYNCED).getMessage())
        .isEqualTo("1/2 data planes applied version 8");
    // 9001 is routable: 9002 is not kept, and the Event says so.
    assertThat(events("MemberRemoved"))
        .containsExactly(
            "127.0.0.1:9002 (Static) left the pool: removed from spec; 1 routable member takes"
                + " over");

    clock.step(1_000);
    dataPlanes = new DataPlaneSync(2, 1, 9, List.of());
    assertThat(reconcile(pool).isNoUpdate()).isTrue();
    clock.step(StatusWriter.REFRESH_MILLIS);
    assertThat(reconcile(pool).isNoUpdate()).isTrue();
    clock.step(StatusWriter.DRIFT_REFRESH_MILLIS);
    assertThat(condition(written(pool, reconcile(pool)), Conditions.DATA_PLANE_SYNCED).getMessage())
        .isEqualTo("1/2 data planes applied version 9");
  }

  @Test
  void aProbeThatChangesAStateIsPushedAtOnceAndWrittenByTheNextReconcile() {
    HttpServer member =
        vertx
            .createHttpServer()
            .requestHandler(r -> r.response().end("ok"))
            .listen(0, "127.0.0.1")
            .await();
    try {
      String address = "127.0.0.1:" + member.actualPort();
      ReplicaPool pool =
          pool(
              "probed",
              s -> {
                s.endpoints = List.of(new StaticEndpoint("127.0.0.1", member.actualPort()));
                s.healthCheck.intervalMillis = 60_000;
                s.healthCheck.healthyThreshold = 2;
              });
      ReplicaPoolStatus pending = written(pool, reconcile(pool));
      assertThat(pending.endpoints).extracting(e -> e.state).containsExactly(MemberState.Pending);
      assertThat(condition(pending, Conditions.READY).getMessage())
          .isEqualTo("none of 1 members is routable (1 pending their first probes)");
      assertThat(prober.tracked()).containsExactly(new MemberKey(name(pool), address));
      long before = server.latestVersion(name(pool));

      // What the prober reports for a member that answers (the real probes of it pass too).
      for (int i = 0; i < 2; i++) {
        reconciler.onProbeResult(
            new ProbeResult(
                new MemberKey(name(pool), address), true, 3, 200, null, null, clock.instant()));
      }
      assertThat(server.latestVersion(name(pool))).isGreaterThan(before);

      ReplicaPoolStatus healthy = written(pool, reconcile(pool));
      assertThat(healthy.endpoints).extracting(e -> e.state).containsExactly(MemberState.Healthy);
      assertThat(condition(healthy, Conditions.READY).getStatus()).isEqualTo("True");
      assertThat(events("MemberHealthy")).hasSize(1);
    } finally {
      member.close().await();
    }
  }

  @Test
  void theTlsSecretIsAProblemUntilItHoldsAPemPair() {
    ReplicaPool pool = staticPool("secure");
    pool.getSpec().tls = new Tls();
    pool.getSpec().tls.secretName = "secure-tls";

    ReplicaPoolStatus missing = written(pool, reconcile(pool));
    Condition invalid = condition(missing, Conditions.CONFIGURATION_VALID);
    assertThat(invalid.getStatus()).isEqualTo("False");
    assertThat(invalid.getMessage())
        .isEqualTo("TLS Secret secure-tls not found (it must be of type kubernetes.io/tls)");
    assertThat(events("InvalidConfiguration")).containsExactly(invalid.getMessage());
    long withoutTls = publisher.version(name(pool));

    client
        .secrets()
        .inNamespace(namespace)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("secure-tls")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("tls.crt", base64("-----BEGIN CERTIFICATE-----\nC\n"))
                .addToData("tls.key", base64("-----BEGIN PRIVATE KEY-----\nK\n"))
                .build())
        .create();
    ReplicaPoolStatus valid = written(pool, reconcile(pool));
    assertThat(condition(valid, Conditions.CONFIGURATION_VALID).getStatus()).isEqualTo("True");
    assertThat(publisher.version(name(pool))).isGreaterThan(withoutTls);
  }

  @Test
  void eachDistinctRefusalIsOneWarningEvent() {
    ReplicaPool pool = staticPool("refused");
    dataPlanes = new DataPlaneSync(1, 0, 5, List.of("dp-1 refused version 5: port 80 is in use"));
    ReplicaPoolStatus status = written(pool, reconcile(pool));
    Condition synced = condition(status, Conditions.DATA_PLANE_SYNCED);
    assertThat(synced.getReason()).isEqualTo("Rejected");
    assertThat(synced.getMessage())
        .isEqualTo(
            "1 of 1 data planes rejected version 5: dp-1 refused version 5: port 80 is in use"
                + " (sent again until it applies)");

    dataPlanes = new DataPlaneSync(1, 0, 6, List.of("dp-1 refused version 6: port 80 is in use"));
    reconcile(pool);
    dataPlanes = new DataPlaneSync(1, 0, 7, List.of("dp-1 refused version 7: no certificate"));
    reconcile(pool);

    assertThat(events("DataPlaneRejected"))
        .containsExactlyInAnyOrder(
            "dp-1 refused version 5: port 80 is in use", "dp-1 refused version 7: no certificate");
  }

  @Test
  void readyPodsOfTheSelectorAreMembersAndASelectorThatMatchesNoneIsSaid() {
    ReplicaPool pool = selectorPool("pods");
    pool.getSpec().healthCheck.enabled = false;
    ReplicaPoolStatus none = written(pool, reconcile(pool));
    Condition ready = condition(none, Conditions.READY);
    assertThat(ready.getReason()).isEqualTo("NoMembers");
    assertThat(ready.getMessage()).isEqualTo("selector app=pods matches no Pods");
    assertThat(events("SelectorMatchesNothing")).containsExactly(ready.getMessage());

    TestPods.ready(client, namespace, "pods-0", "pods", "10.1.0.5");
    ReplicaPoolStatus one = written(pool, reconcile(pool));
    assertThat(one.endpoints).hasSize(1);
    assertThat(one.endpoints.get(0).address).isEqualTo("10.1.0.5:8080");
    assertThat(one.endpoints.get(0).source).isEqualTo(MemberSource.Pod);
    assertThat(one.endpoints.get(0).name).isEqualTo("pods-0");
  }

  @Test
  void expiredLeasesLeaveThePoolAtOnceAndTheirObjectsAfterAMinute() {
    ReplicaPool pool =
        pool(
            "leased",
            s -> {
              s.registration = new Registration();
              s.healthCheck.enabled = false;
            });
    long now = clock.millis();
    lease("leased-a", "leased", "127.0.0.1:9001", now);
    lease("leased-b", "leased", "127.0.0.1:9002", now - 900 - ExpiredLeaseCollector.GRACE_MILLIS);

    UpdateControl<ReplicaPool> control = reconcile(pool);
    ReplicaPoolStatus status = written(pool, control);
    assertThat(status.endpoints).extracting(e -> e.address).containsExactly("127.0.0.1:9001");
    assertThat(status.endpoints.get(0).source).isEqualTo(MemberSource.Lease);
    // Woken when the live Lease expires, not at the next refresh.
    assertThat(control.getScheduleDelay()).contains(901L);
    assertThat(leaseNames()).containsExactly("leased-a");

    clock.step(901);
    ReplicaPoolStatus expired = written(pool, reconcile(pool));
    assertThat(expired.registered).isZero();
    assertThat(leaseNames()).containsExactly("leased-a");
  }

  @Test
  void aDeletedPoolIsForgottenByTheProberAndTheDataPlanes() {
    ReplicaPool pool =
        pool(
            "gone",
            s -> {
              s.endpoints = List.of(new StaticEndpoint("127.0.0.1", 9));
              s.healthCheck.intervalMillis = 60_000;
            });
    reconcile(pool);
    assertThat(prober.tracked()).hasSize(1);
    long published = server.latestVersion(name(pool));

    UpdateControl<ReplicaPool> control =
        reconciler.reconcile(pool, TestContext.deleted(client, pool));

    assertThat(control.isNoUpdate()).isTrue();
    assertThat(prober.tracked()).isEmpty();
    assertThat(publisher.version(name(pool))).isZero();
    assertThat(server.latestVersion(name(pool))).isGreaterThan(published); // the removal
  }

  /** The pool as the API server stored it (with its UID): it exists. */
  ReplicaPool stored(ReplicaPool pool) {
    ReplicaPool created = client.resource(pool).create();
    pool.getMetadata().setUid(created.getMetadata().getUid());
    return pool;
  }

  @Test
  void aReconcileThatFailsBecauseItsPoolWasDeletedForgetsItWithoutAnErrorStatus() {
    ReplicaPool pool =
        stored(
            pool(
                "deleted-meanwhile",
                s -> {
                  s.endpoints = List.of(new StaticEndpoint("127.0.0.1", 9));
                  s.healthCheck.intervalMillis = 60_000;
                }));
    reconcile(pool);
    assertThat(prober.tracked()).hasSize(1);
    client.resource(pool).withGracePeriod(0).delete();
    await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> client.resource(pool).get() == null);

    ErrorStatusUpdateControl<ReplicaPool> error =
        reconciler.updateErrorStatus(
            pool,
            TestContext.of(client, pool),
            new KubernetesClientException(
                "replicapools \"deleted-meanwhile\" not found", 404, null));

    assertThat(error.getResource()).isEmpty(); // no Reconciled=False write
    assertThat(error.isNoRetry()).isTrue();
    assertThat(error.isDefaultErrorProcessing()).isFalse();
    assertThat(prober.tracked()).isEmpty();
    assertThat(publisher.version(name(pool))).isZero();
    assertThat(reconciler.pools()).doesNotContain(name(pool));
    // A reconcile of the deleted pool still under way, or a retry, brings nothing back.
    assertThat(reconcile(pool).isNoUpdate()).isTrue();
    assertThat(reconciler.pools()).doesNotContain(name(pool));
    assertThat(prober.tracked()).isEmpty();
  }

  @Test
  void aFailedReconcileIsAConditionUntilOneSucceeds() {
    ReplicaPool pool = stored(selectorPool("failing"));
    written(pool, reconcile(pool));
    inputs.failure = new IllegalStateException("the Pod cache is not synced");
    assertThatThrownBy(() -> reconcile(pool)).isSameAs(inputs.failure);

    ErrorStatusUpdateControl<ReplicaPool> error =
        reconciler.updateErrorStatus(pool, TestContext.of(client, pool), inputs.failure);

    ReplicaPoolStatus failed = error.getResource().orElseThrow().getStatus();
    Condition reconciled = condition(failed, Conditions.RECONCILED);
    assertThat(reconciled.getStatus()).isEqualTo("False");
    assertThat(reconciled.getReason()).isEqualTo("ReconcileFailed");
    assertThat(reconciled.getMessage())
        .isEqualTo("IllegalStateException: the Pod cache is not synced");
    // The rest stays as the last reconcile that succeeded wrote it, and JOSDK retries.
    assertThat(condition(failed, Conditions.READY)).isEqualTo(condition(pool.getStatus(), "Ready"));
    assertThat(error.isNoRetry()).isFalse();

    pool.setStatus(failed);
    inputs.failure = null;
    ReplicaPoolStatus recovered = written(pool, reconcile(pool));
    assertThat(condition(recovered, Conditions.RECONCILED)).isNull();
  }

  void lease(String name, String pool, String address, long renewedMillis) {
    client
        .leases()
        .inNamespace(namespace)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(LeaseConventions.POOL_LABEL, pool)
                .addToAnnotations(LeaseConventions.ADDRESS_ANNOTATION, address)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(name)
                .withRenewTime(
                    ZonedDateTime.ofInstant(Instant.ofEpochMilli(renewedMillis), ZoneOffset.UTC))
                .endSpec()
                .build())
        .create();
  }

  List<String> leaseNames() {
    return client.leases().inNamespace(namespace).list().getItems().stream()
        .map(l -> l.getMetadata().getName())
        .toList();
  }

  static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
