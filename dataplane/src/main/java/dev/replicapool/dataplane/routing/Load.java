package dev.replicapool.dataplane.routing;

/**
 * How loaded a member looks to this data plane, lower is better. {@link PowerOfTwoChoices} only
 * compares two members' values, so what "load" means is this interface's business alone.
 */
@FunctionalInterface
public interface Load {
  double of(Endpoint e, long nowNanos);
}
