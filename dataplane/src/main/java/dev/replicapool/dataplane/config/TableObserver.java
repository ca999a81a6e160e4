package dev.replicapool.dataplane.config;

import io.vertx.core.Future;

/** Something that follows the routing table: listeners, TLS, metrics. */
public interface TableObserver {
  /**
   * Called before {@code next} replaces the current table, e.g. to bind a new dedicated port. A
   * failed future rejects the snapshot (a NACK) and the current table stays.
   */
  default Future<Void> prepare(RoutingTable current, RoutingTable next) {
    return Future.succeededFuture();
  }

  /**
   * Called instead of {@link #installed} when some observer failed to prepare: undo what {@link
   * #prepare} did for {@code next}; {@code current} stays.
   */
  default void abort(RoutingTable current, RoutingTable next) {}

  /** Called right after {@code next} replaced {@code previous}. */
  default void installed(RoutingTable previous, RoutingTable next) {}
}
