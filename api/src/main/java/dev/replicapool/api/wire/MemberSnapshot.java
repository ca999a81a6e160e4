package dev.replicapool.api.wire;

import dev.replicapool.api.v1alpha1.MemberState;

/** One member as pushed to the data planes: a weight of 0 means no new requests. */
public record MemberSnapshot(String host, int port, double weight, MemberState state) {
  public String address() {
    return host + ":" + port;
  }
}
