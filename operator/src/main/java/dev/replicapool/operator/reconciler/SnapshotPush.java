package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LabelSelectors;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.readiness.RoutableGate;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The third phase of a reconcile, and what a probe result does at once: sends the pool's member set
 * to the data planes (the publisher skips what they already have), then sets the readiness gate of
 * the pool's Pods to whether some pool routes to them now.
 */
final class SnapshotPush {
  private final SnapshotPublisher publisher;
  private final PoolRegistry pools;

  SnapshotPush(SnapshotPublisher publisher, PoolRegistry pools) {
    this.publisher = publisher;
    this.pools = pools;
  }

  /**
   * Publishes after a reconcile; returns the version the data planes should run.
   *
   * @param triggerNanos when the change this reconcile acts on was seen ({@link System#nanoTime()})
   */
  long publish(
      ReplicaPool pool,
      PoolState state,
      List<Pod> pods,
      KubernetesClient client,
      long triggerNanos) {
    long version = publish(state, triggerNanos);
    RoutableGate gate = new RoutableGate(client);
    for (Pod pod : pods) {
      if (LabelSelectors.matches(pool.getSpec().selector, pod.getMetadata().getLabels())) {
        gate.sync(pod, pools::anyPoolRoutesTo); // only Pods that declare the gate
      }
    }
    return version;
  }

  /**
   * Publishes what the pool's state holds now, e.g. after a probe changed a weight; nothing once
   * the pool was deleted. Under the state's monitor, so that a probe result that raced the deletion
   * cannot publish after the removal.
   *
   * @param triggerNanos when the change was seen ({@link System#nanoTime()}), e.g. the probe result
   */
  long publish(PoolState state, long triggerNanos) {
    synchronized (state) {
      if (!state.live()) {
        return publisher.version(state.name());
      }
      return publisher.publish(
          state.name(),
          state.spec(),
          state.memberSnapshots(),
          state.tls(),
          state.upstreamTls(),
          triggerNanos);
    }
  }

  /** Tells the data planes the pool is gone. */
  void remove(String pool) {
    publisher.remove(pool);
  }
}
