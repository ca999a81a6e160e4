package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;

/** Healthy members for tests outside the routing package, which cannot make an Endpoint. */
public final class TestEndpoints {
  private TestEndpoints() {}

  public static Endpoint healthy(String host, int port) {
    return new Endpoint(host, port, 1.0, MemberState.Healthy, new PeakEwma(10_000, 1, 0));
  }
}
