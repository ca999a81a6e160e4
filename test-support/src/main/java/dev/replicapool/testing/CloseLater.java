package dev.replicapool.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test closes after it is done (replicas, proxies, clients, data planes it started): last
 * handed over, first closed, as try-with-resources would, since what starts later may lean on what
 * started before. Each close is best effort, so that one failure does not keep the rest open.
 */
public final class CloseLater {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** Hands {@code c} over and returns it. */
  public synchronized <T extends AutoCloseable> T add(T c) {
    closeables.add(c);
    return c;
  }

  /** Closes everything handed over so far, newest first, and forgets it. */
  public void closeAll() {
    List<AutoCloseable> all;
    synchronized (this) {
      all = new ArrayList<>(closeables);
      closeables.clear();
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).close();
      } catch (Exception ignored) {
        // best effort: the rest still close
      }
    }
  }
}
