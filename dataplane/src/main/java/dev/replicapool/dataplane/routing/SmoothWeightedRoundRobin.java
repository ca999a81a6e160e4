package dev.replicapool.dataplane.routing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * nginx's smooth weighted round-robin: each pick adds every candidate's weight to its running
 * score, takes the highest score (the first on a tie) and subtracts the sum of weights from the
 * winner. Deterministic; weights 5:1:1 give a a b a c a a, equal weights rotate strictly.
 *
 * <p>Weights (0..1 in snapshots) are scaled to integers in thousandths so the arithmetic is exact.
 * Only candidates take part in a pick, so an ejected or already-tried member neither wins nor
 * builds up a score while it is away. The scores are this balancer's; one built for a newer
 * snapshot shares the scores of the members that stay, so the rotation goes on where it was.
 */
public final class SmoothWeightedRoundRobin implements Balancer {
  static final int SCALE = 1000;

  private static final class Score {
    long current;
  }

  private final Map<Endpoint, Score> scores;

  public SmoothWeightedRoundRobin() {
    this.scores = new HashMap<>();
  }

  /** Carries the scores of {@code members} that {@code previous} (may be null) already had. */
  SmoothWeightedRoundRobin(SmoothWeightedRoundRobin previous, List<Endpoint> members) {
    this.scores = new HashMap<>(members.size() * 2);
    if (previous != null) {
      for (Endpoint e : members) {
        Score s = previous.scores.get(e);
        if (s != null) {
          scores.put(e, s);
        }
      }
    }
  }

  @Override
  public Endpoint pick(List<Endpoint> candidates, long nowNanos) {
    Score bestScore = null;
    Endpoint best = null;
    long total = 0;
    for (int i = 0; i < candidates.size(); i++) { // indexed: no iterator per pick
      Endpoint e = candidates.get(i);
      long w = scaled(e.effectiveWeight);
      Score s = scores.computeIfAbsent(e, k -> new Score());
      s.current += w;
      total += w;
      if (best == null || s.current > bestScore.current) {
        best = e;
        bestScore = s;
      }
    }
    if (best != null) {
      bestScore.current -= total;
    }
    return best;
  }

  /** The member's running score (0 before its first pick). */
  long score(Endpoint e) {
    Score s = scores.get(e);
    return s == null ? 0 : s.current;
  }

  static long scaled(double weight) {
    return Math.max(1, Math.round(weight * SCALE));
  }
}
