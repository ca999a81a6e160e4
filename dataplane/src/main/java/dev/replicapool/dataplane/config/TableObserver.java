package dev.replicapool.dataplane.config;

import io.vertx.core.Future;
import java.util.Set;

/** Something that follows the routing table: listeners, TLS, metrics. */
public interface TableObserver {

  /**
   * One swap of the routing table: {@code next} replaces {@code previous}, and {@code pools} names
   * every pool added, replaced or removed (any other pool is the same object in both tables), so an
   * observer can do work per changed pool instead of per pool.
   */
  record Change(RoutingTable previous, RoutingTable next, Set<String> pools) {}

  /**
   * Called before the change, e.g. to bind a new dedicated port. A failed future rejects the change
   * (a NACK) and the current table stays.
   */
  default Future<Void> prepare(Change change) {
    return Future.succeededFuture();
  }

  /**
   * Called instead of {@link #installed} when some observer failed to prepare: undo what {@link
   * #prepare} did; the previous table stays.
   */
  default void abort(Change change) {}

  /** Called right after the change was installed. */
  default void installed(Change change) {}
}
