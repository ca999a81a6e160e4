package dev.replicapool.controlplane;

import java.util.List;

/**
 * How far the connected data planes are with one pool.
 *
 * @param dataPlanes connected data planes (that said hello)
 * @param atLatestVersion how many of them acknowledged {@code latestVersion} (or a newer one)
 * @param latestVersion the version the operator published last for the pool (0: never published)
 * @param nacks one line per data plane whose last answer for this pool was a NACK: "node: version
 *     V: reason"
 */
public record SyncState(
    int dataPlanes, int atLatestVersion, long latestVersion, List<String> nacks) {

  public SyncState {
    nacks = List.copyOf(nacks);
  }

  /** True when every connected data plane runs the latest version (and at least one is there). */
  public boolean synced() {
    return dataPlanes > 0 && atLatestVersion == dataPlanes;
  }
}
