package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.status.Conditions;
import dev.replicapool.operator.status.StatusDiff;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The last phase of a reconcile: decides whether the fresh status is written and when the pool is
 * reconciled again. A change a user must see is written at once, one a user reads (a message's
 * words, a weight) at most every {@link #REFRESH_MILLIS}, figures that only drift (latencies, lease
 * expiry times, versions) at most every {@link #DRIFT_REFRESH_MILLIS}, an unchanged status never
 * ({@link StatusDiff}): so {@code kubectl get rp -w} prints changes, not a heartbeat. The write is
 * a status patch of a fresh object, so nothing of the spec or metadata read at the start can be
 * written back.
 */
final class StatusWriter {
  /** How often the status may change for what a user reads but need not see at once. */
  static final long REFRESH_MILLIS = 5_000;

  /** How often figures that drift all the time are brought up to date; metrics have them live. */
  static final long DRIFT_REFRESH_MILLIS = 60_000;

  /** Kubernetes allows 32 KiB; a stack of wrapped causes is not worth that much status. */
  static final int MAX_ERROR_MESSAGE = 1024;

  UpdateControl<ReplicaPool> write(
      ReplicaPool pool,
      ReplicaPoolStatus status,
      PoolState state,
      List<Member> members,
      long nowMillis) {
    long next = nextWakeUp(members, nowMillis);
    long sinceWrite = nowMillis - state.lastStatusWriteMillis();
    long wait =
        switch (StatusDiff.classify(status, pool.getStatus())) {
          case NONE -> Long.MAX_VALUE;
          case DRIFT -> DRIFT_REFRESH_MILLIS - sinceWrite;
          case NOTABLE -> REFRESH_MILLIS - sinceWrite;
          case SIGNIFICANT -> 0;
        };
    if (wait <= 0) {
      state.statusWritten(nowMillis);
      return UpdateControl.patchStatus(withStatus(pool, status)).rescheduleAfter(next);
    }
    // Catch up when the change is due, not on every probe that moves a figure.
    return UpdateControl.<ReplicaPool>noUpdate().rescheduleAfter(Math.min(next, wait));
  }

  /**
   * The status after a failed reconcile: the stored one with a {@link Conditions#RECONCILED}
   * condition that says why. JOSDK retries the reconcile as usual. A reconcile interrupted because
   * the operator stops (or lost the lead) failed for no fault of the pool: its status stays.
   */
  ErrorStatusUpdateControl<ReplicaPool> failed(ReplicaPool pool, Exception error, Instant now) {
    if (interrupted(error)) {
      return ErrorStatusUpdateControl.defaultErrorProcessing();
    }
    ReplicaPoolStatus status =
        pool.getStatus() == null ? new ReplicaPoolStatus() : Serialization.clone(pool.getStatus());
    long generation =
        pool.getMetadata().getGeneration() == null ? 0 : pool.getMetadata().getGeneration();
    Condition failed =
        Conditions.of(
            Conditions.RECONCILED,
            false,
            "ReconcileFailed",
            describe(error),
            generation,
            now.toString());
    List<Condition> conditions = new ArrayList<>(status.conditions);
    conditions.removeIf(c -> Conditions.RECONCILED.equals(c.getType()));
    conditions.add(failed);
    status.conditions = Conditions.carryTransitionTimes(status.conditions, conditions);
    return ErrorStatusUpdateControl.patchStatus(withStatus(pool, status));
  }

  private static boolean interrupted(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException || t instanceof InterruptedIOException) {
        return true;
      }
    }
    return Thread.currentThread().isInterrupted();
  }

  private static String describe(Exception error) {
    String message =
        error.getMessage() == null
            ? error.getClass().getSimpleName()
            : error.getClass().getSimpleName() + ": " + error.getMessage();
    return message.length() > MAX_ERROR_MESSAGE ? message.substring(0, MAX_ERROR_MESSAGE) : message;
  }

  /** The earliest Lease expiry (so that it is acted on at once), else the status refresh. */
  private static long nextWakeUp(List<Member> members, long nowMillis) {
    long next = REFRESH_MILLIS;
    for (Member m : members) {
      if (m.leaseExpiresAtMillis() != null) {
        next = Math.min(next, Math.max(1, m.leaseExpiresAtMillis() - nowMillis + 1));
      }
    }
    return next;
  }

  private static ReplicaPool withStatus(ReplicaPool pool, ReplicaPoolStatus status) {
    ReplicaPool fresh = new ReplicaPool();
    fresh.getMetadata().setName(pool.getMetadata().getName());
    fresh.getMetadata().setNamespace(pool.getMetadata().getNamespace());
    fresh.setStatus(status);
    return fresh;
  }
}
