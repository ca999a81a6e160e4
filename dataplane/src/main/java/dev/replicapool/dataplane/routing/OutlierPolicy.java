package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.OutlierDetection;

/**
 * Passive ejection parameters, with the CRD's defaults for anything missing.
 *
 * @param consecutiveFailures failures in a row that eject a member; 0 turns ejection off
 */
public record OutlierPolicy(
    int consecutiveFailures,
    long baseEjectionMillis,
    long maxEjectionMillis,
    int maxEjectionPercent) {

  public static final OutlierPolicy DEFAULT = from(null);

  public static OutlierPolicy from(OutlierDetection o) {
    OutlierDetection d = new OutlierDetection();
    if (o == null) {
      o = d;
    }
    int failures = o.consecutiveFailures != null ? o.consecutiveFailures : d.consecutiveFailures;
    long base = o.baseEjectionMillis != null ? o.baseEjectionMillis : d.baseEjectionMillis;
    long max = o.maxEjectionMillis != null ? o.maxEjectionMillis : d.maxEjectionMillis;
    int percent = o.maxEjectionPercent != null ? o.maxEjectionPercent : d.maxEjectionPercent;
    return new OutlierPolicy(failures, base, Math.max(base, max), percent);
  }

  /**
   * How many of {@code admitted} members may be ejected at once: {@code maxEjectionPercent} of them
   * rounded down, but at least one in a pool of two or more as long as the percentage is not 0 (10%
   * of 3 members would otherwise never eject anything, which is what small pools need most). A pool
   * of one never ejects its only member unless the percentage is 100.
   */
  public int maxEjected(int admitted) {
    if (consecutiveFailures <= 0 || maxEjectionPercent <= 0 || admitted <= 0) {
      return 0;
    }
    int byPercent = (int) Math.floor(admitted * maxEjectionPercent / 100.0);
    return Math.max(byPercent, admitted >= 2 ? 1 : 0);
  }

  /** Length of the n-th ejection (n from 1): base x n, capped. */
  public long ejectionMillis(int n) {
    return Math.min(maxEjectionMillis, baseEjectionMillis * (long) Math.max(1, n));
  }
}
