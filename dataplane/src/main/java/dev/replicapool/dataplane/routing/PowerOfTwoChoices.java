package dev.replicapool.dataplane.routing;

import java.util.List;
import java.util.Random;

/**
 * The Adaptive policy: draws two distinct candidates at random with probability proportional to
 * their weight, and sends the request to the one with the lower cost {@code latency x (in-flight +
 * 1)}, latency being the member's {@link PeakEwma} (failures count as a large latency, see {@link
 * PoolRouter}). A member that slows down or piles up requests loses within a few requests, without
 * waiting for the operator's next weights.
 */
public final class PowerOfTwoChoices implements Balancer {
  private final Random random;

  public PowerOfTwoChoices(Random random) {
    this.random = random;
  }

  @Override
  public Endpoint pick(List<Endpoint> candidates, long nowNanos) {
    if (candidates.size() == 1) {
      return candidates.get(0);
    }
    Endpoint a = draw(candidates, null);
    Endpoint b = draw(candidates, a);
    return cost(b, nowNanos) < cost(a, nowNanos) ? b : a;
  }

  /** latency estimate x (in-flight + 1). */
  public static double cost(Endpoint e, long nowNanos) {
    return e.latency.value(nowNanos) * (e.inflight() + 1);
  }

  private Endpoint draw(List<Endpoint> candidates, Endpoint skip) {
    double total = 0;
    for (Endpoint e : candidates) {
      if (e != skip) {
        total += e.effectiveWeight;
      }
    }
    double r = random.nextDouble() * total;
    Endpoint last = null;
    for (Endpoint e : candidates) {
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
