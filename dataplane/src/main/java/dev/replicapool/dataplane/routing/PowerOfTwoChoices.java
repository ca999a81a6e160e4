package dev.replicapool.dataplane.routing;

import java.util.List;
import java.util.Random;

/**
 * The Adaptive policy: draws two distinct candidates at random with probability proportional to
 * their weight, and sends the request to the one with the lower {@link Load} (a tie goes to the
 * first drawn). It keeps no state of its own per member: the load holds what it needs.
 */
public final class PowerOfTwoChoices implements Balancer {
  private final Random random;
  private final Load load;

  /** With the peak-EWMA load. */
  public PowerOfTwoChoices(Random random) {
    this(random, PeakEwmaLoad.INSTANCE);
  }

  public PowerOfTwoChoices(Random random, Load load) {
    this.random = random;
    this.load = load;
  }

  @Override
  public Endpoint pick(List<Endpoint> candidates, long nowNanos) {
    if (candidates.size() == 1) {
      return candidates.get(0);
    }
    Endpoint a = draw(candidates, null);
    Endpoint b = draw(candidates, a);
    return load.of(b, nowNanos) < load.of(a, nowNanos) ? b : a;
  }

  private Endpoint draw(List<Endpoint> candidates, Endpoint skip) {
    double total = 0;
    for (int i = 0; i < candidates.size(); i++) {
      Endpoint e = candidates.get(i);
      if (e != skip) {
        total += e.effectiveWeight;
      }
    }
    double r = random.nextDouble() * total;
    Endpoint last = null;
    for (int i = 0; i < candidates.size(); i++) {
      Endpoint e = candidates.get(i);
      if (e == skip) {
        continue;
      }
      last = e;
      r -= e.effectiveWeight;
      if (r < 0) {
        return e;
      }
    }
    return last; // rounding at the upper end
  }
}
