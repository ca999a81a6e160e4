package dev.replicapool.operator.health;

import java.util.Optional;

/**
 * What holds a member Unhealthy once it was routable: an expired lease, its own report, or a streak
 * of failed probes; and, against flapping, how many times probes ejected it since it was last
 * Healthy. Plain data.
 */
final class DownCauses {
  /** The passing streak needed after repeated ejections doubles at most this many times. */
  static final int MAX_FLAP_DOUBLINGS = 6;

  private boolean leaseExpired;
  private boolean selfUnhealthy;
  private Optional<String> probesFailed = Optional.empty();

  /** What the member's probes say while they hold it down ("connection refused"), or null. */
  private String probeFailure;

  private int ejections;

  /** The cause that wins (lease, then self-report, then probes); empty when none holds. */
  Optional<String> reason() {
    if (leaseExpired) {
      return Optional.of("lease expired");
    }
    if (selfUnhealthy) {
      return Optional.of("reports itself unhealthy");
    }
    return probesFailed.map(streak -> probeFailure == null ? streak : streak + ": " + probeFailure);
  }

  /** The lease or the member's own report holds it down, whatever probes say. */
  boolean blocked() {
    return leaseExpired || selfUnhealthy;
  }

  boolean any() {
    return blocked() || probesFailed.isPresent();
  }

  boolean probesFailed() {
    return probesFailed.isPresent();
  }

  void leaseExpired() {
    leaseExpired = true;
  }

  /** A lease renewal: the lease holds again, and the member says how it is. */
  void renewed(boolean healthy) {
    leaseExpired = false;
    selfUnhealthy = !healthy;
  }

  /**
   * Probes eject the member, {@code streak} naming it ("3 probes failed in a row") and {@code
   * failure} what the last probe said (null when unknown).
   */
  void ejectedByProbes(String streak, String failure) {
    probesFailed = Optional.of(streak);
    probeFailure = failure;
    ejections++;
  }

  /**
   * A probe failed again while probes hold the member down: the reason follows what it says (a
   * member that was refused and now times out is hung, not gone), not how many failed since.
   */
  void stillFailing(String failure) {
    if (probesFailed.isPresent() && failure != null) {
      probeFailure = failure;
    }
  }

  void readmittedByProbes() {
    probesFailed = Optional.empty();
    probeFailure = null;
  }

  /** Reaching Healthy forgives earlier ejections. */
  void forgive() {
    ejections = 0;
  }

  /** Passes in a row probes need to readmit it: {@code healthyThreshold x 2^(ejections-1)}. */
  int requiredPasses(int healthyThreshold) {
    int doublings = Math.min(Math.max(ejections - 1, 0), MAX_FLAP_DOUBLINGS);
    return healthyThreshold << doublings;
  }
}
