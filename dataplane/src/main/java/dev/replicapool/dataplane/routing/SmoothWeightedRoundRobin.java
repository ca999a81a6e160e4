package dev.replicapool.dataplane.routing;

import java.util.List;

/**
 * nginx's smooth weighted round-robin: each pick adds every candidate's weight to its running
 * score, takes the highest score (the first on a tie) and subtracts the sum of weights from the
 * winner. Deterministic; weights 5:1:1 give a a b a c a a, equal weights rotate strictly.
 *
 * <p>Weights (0..1 in snapshots) are scaled to integers in thousandths so the arithmetic is exact.
 * Only candidates take part in a pick, so an ejected or already-tried member neither wins nor
 * builds up a score while it is away.
 */
public final class SmoothWeightedRoundRobin implements Balancer {
  static final int SCALE = 1000;

  @Override
  public Endpoint pick(List<Endpoint> candidates, long nowNanos) {
    Endpoint best = null;
    long total = 0;
    for (Endpoint e : candidates) {
      long w = scaled(e.effectiveWeight);
      e.swrrCurrent += w;
      total += w;
      if (best == null || e.swrrCurrent > best.swrrCurrent) {
        best = e;
      }
    }
    if (best != null) {
      best.swrrCurrent -= total;
    }
    return best;
  }

  static long scaled(double weight) {
    return Math.max(1, Math.round(weight * SCALE));
  }
}
