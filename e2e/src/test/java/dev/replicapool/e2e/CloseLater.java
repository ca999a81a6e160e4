package dev.replicapool.e2e;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test class closes after all its tests (replicas, clients, registrars it started), in the
 * order they were handed over, each close best effort so that one failure does not keep the rest
 * open. Used by {@link NamespacedInstallIT} and {@link OperatorUnderManifestRbacIT}.
 */
final class CloseLater {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** Hands {@code c} over and returns it. */
  <T extends AutoCloseable> T add(T c) {
    closeables.add(c);
    return c;
  }

  void closeAll() {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
  }
}
