package dev.replicapool.operator.probing;

/** Receives every probe result, on the prober's event-loop thread: return quickly, never block. */
@FunctionalInterface
public interface ProbeListener {
  void onResult(ProbeResult result);
}
