package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusWriterTest {
  static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
  final StatusWriter writer = new StatusWriter();
  final StepClock clock = new StepClock(T0.toEpochMilli());
  final PoolState state = new PoolState(new ResourceID("web", "shop"), clock);
  final ReplicaPool pool = new ReplicaPool();

  StatusWriterTest() {
    pool.getMetadata().setName("web");
    pool.getMetadata().setNamespace("shop");
    pool.getMetadata().setGeneration(2L);
    pool.setSpec(new ReplicaPoolSpec());
  }

  static ReplicaPoolStatus status(int registered) {
    ReplicaPoolStatus s = new ReplicaPoolStatus();
    s.registered = registered;
    s.conditions.add(Conditions.of(Conditions.READY, true, "EndpointsRoutable", "", 2, "" + T0));
    return s;
  }

  static Member lease(long expiresAtMillis) {
    return new Member("10.0.0.1", 80, MemberSource.Lease, "web-a", false, true, expiresAtMillis);
  }

  @Test
  void theFirstStatusIsWrittenAndRemembered() {
    ReplicaPoolStatus fresh = status(1);
    UpdateControl<ReplicaPool> c = writer.write(pool, fresh, state, List.of(), clock.millis());
    assertThat(c.isPatchStatus()).isTrue();
    assertThat(c.getResource().orElseThrow().getStatus()).isSameAs(fresh);
    assertThat(c.getResource().orElseThrow().getMetadata().getResourceVersion()).isNull();
    assertThat(state.lastStatusWriteMillis()).isEqualTo(clock.millis());
  }

  static ReplicaPoolStatus withMessage(String message) {
    ReplicaPoolStatus s = status(1);
    s.conditions.get(0).setMessage(message);
    return s;
  }

  static ReplicaPoolStatus withTransitionTime(String message, String time) {
    ReplicaPoolStatus s = withMessage(message);
    s.conditions.get(0).setLastTransitionTime(time);
    return s;
  }

  @Test
  void aChangedWordWaitsForTheRefreshAndAChangedFigureForTheSlowerOne() {
    writer.write(pool, withMessage("1 of 1 members routable"), state, List.of(), clock.millis());
    pool.setStatus(withMessage("1 of 1 members routable"));

    clock.step(1_000);
    UpdateControl<ReplicaPool> figure =
        writer.write(
            pool, withMessage("1 of 2 members routable"), state, List.of(), clock.millis());
    assertThat(figure.isNoUpdate()).isTrue();
    UpdateControl<ReplicaPool> words =
        writer.write(pool, withMessage("no member routable"), state, List.of(), clock.millis());
    assertThat(words.isNoUpdate()).isTrue();
    assertThat(words.getScheduleDelay()).contains(StatusWriter.REFRESH_MILLIS - 1_000);

    clock.step(StatusWriter.REFRESH_MILLIS);
    assertThat(
            writer
                .write(
                    pool, withMessage("1 of 2 members routable"), state, List.of(), clock.millis())
                .isNoUpdate())
        .isTrue();
    assertThat(
            writer
                .write(pool, withMessage("no member routable"), state, List.of(), clock.millis())
                .isPatchStatus())
        .isTrue();
    pool.setStatus(withMessage("no member routable"));

    clock.step(StatusWriter.DRIFT_REFRESH_MILLIS - 1);
    assertThat(
            writer
                .write(
                    pool,
                    withTransitionTime("no member routable", "later"),
                    state,
                    List.of(),
                    clock.millis())
                .isNoUpdate())
        .isTrue();
    clock.step(1);
    assertThat(
            writer
                .write(
                    pool,
                    withTransitionTime("no member routable", "later"),
                    state,
                    List.of(),
                    clock.millis())
                .isPatchStatus())
        .isTrue();
  }

  @Test
  void theNextReconcileComesAtTheFirstLeaseExpiryOrTheRefresh() {
    pool.setStatus(status(1));
    long now = clock.millis();
    assertThat(writer.write(pool, status(1), state, List.of(), now).getScheduleDelay())
        .contains(StatusWriter.REFRESH_MILLIS);
    assertThat(
            writer
                .write(pool, status(1), state, List.of(lease(now + 300), lease(now + 800)), now)
                .getScheduleDelay())
        .contains(301L);
    assertThat(
            writer.write(pool, status(1), state, List.of(lease(now - 5)), now).getScheduleDelay())
        .contains(1L);
  }

  @Test
  void repeatedFailuresKeepTheConditionsFirstTimeAndTheRestOfTheStatus() {
    pool.setStatus(status(3));
    ReplicaPoolStatus first =
        writer
            .failed(pool, new IllegalStateException("boom"), T0)
            .getResource()
            .orElseThrow()
            .getStatus();
    assertThat(pool.getStatus().conditions).hasSize(1); // the stored status is not touched
    pool.setStatus(first);
    ReplicaPoolStatus second =
        writer
            .failed(pool, new IllegalStateException("boom again"), T0.plusSeconds(30))
            .getResource()
            .orElseThrow()
            .getStatus();

    Condition reconciled = Conditions.find(second.conditions, Conditions.RECONCILED);
    assertThat(reconciled.getMessage()).isEqualTo("IllegalStateException: boom again");
    assertThat(reconciled.getLastTransitionTime()).isEqualTo(T0.toString());
    assertThat(reconciled.getObservedGeneration()).isEqualTo(2L);
    assertThat(second.conditions)
        .extracting(Condition::getType)
        .containsExactly("Ready", "Reconciled");
    assertThat(second.registered).isEqualTo(3);
  }

  @Test
  void aFailureBeforeAnyStatusIsAStatusOfItsOwnWithABoundedMessage() {
    ReplicaPoolStatus s =
        writer
            .failed(pool, new RuntimeException("x".repeat(5_000)), T0)
            .getResource()
            .orElseThrow()
            .getStatus();
    assertThat(s.conditions).singleElement().extracting(Condition::getType).isEqualTo("Reconciled");
    assertThat(s.conditions.get(0).getMessage()).hasSize(StatusWriter.MAX_ERROR_MESSAGE);
    assertThat(new StatusWriter().failed(pool, new NullPointerException(), T0).getResource())
        .get()
        .extracting(p -> Conditions.find(p.getStatus().conditions, "Reconciled").getMessage())
        .isEqualTo("NullPointerException");
  }

  @Test
  void aReconcileInterruptedByTheOperatorStoppingLeavesTheStatusAlone() {
    pool.setStatus(status(3));
    var stopping =
        new io.fabric8.kubernetes.client.KubernetesClientException(
            "Operation: [patch] failed", new java.io.InterruptedIOException());
    var control = writer.failed(pool, stopping, T0);
    assertThat(control.isDefaultErrorProcessing()).isTrue();
    assertThat(control.getResource()).isEmpty();
  }
}
