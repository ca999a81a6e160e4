package dev.replicapool.controlplane;

/**
 * One snapshot version of a pool that every data plane serving the pool applied: how long it took
 * from the change the operator saw (the publish's trigger) to the ACK that made the last of them
 * run it or a later version ({@link PushConvergence} says what counts).
 *
 * @param pool "namespace/name"
 * @param version the version that converged
 * @param nanos from its trigger to the ACK that completed it, on {@link System#nanoTime()}
 */
public record Convergence(String pool, long version, long nanos) {}
