package dev.replicapool.dataplane.routing;

/**
 * Told about a pool's ejections ({@link PoolRouter}, {@link OutlierDetector}): the metrics and the
 * log. Called while the pool lock is held: keep it short.
 */
public interface EjectionEvents {
  EjectionEvents NONE = new EjectionEvents() {};

  /** {@code e} is out of the pick for {@code millis}. */
  default void ejected(Endpoint e, long millis) {}

  /** {@code e} is back in the pick. */
  default void returned(Endpoint e) {}
}
