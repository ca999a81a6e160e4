package dev.replicapool.testing;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import io.fabric8.kubernetes.api.model.Condition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What every test on a real API server needs of ReplicaPools: the CRD and condition lookups. */
public final class ReplicaPools {
  private ReplicaPools() {}

  /**
   * A pool of static members in {@code namespace}, routed as NAME.local, probed every 200 ms with a
   * 100 ms timeout, Unhealthy at the first failed probe: what most system tests start from, before
   * their own settings.
   */
  public static ReplicaPool staticPool(
      String namespace, String name, List<StaticEndpoint> endpoints) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>(endpoints);
    spec.route = new Route();
    spec.route.hosts = List.of(name + ".local");
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    pool.setSpec(spec);
    return pool;
  }

  /**
   * Applies the committed CRD (server-side, so repeated runs in one JVM are idempotent) and waits
   * until it is served.
   */
  public static void installCrd(Kubectl kubectl, Path crdDir) {
    Kubectl.Result crd = kubectl.run("apply", "--server-side", "-f", crdDir.toString());
    if (crd.exitCode() != 0) {
      throw new IllegalStateException("could not apply the CRD: " + crd.output());
    }
    Kubectl.Result established =
        kubectl.run(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/replicapools.replicapool.dev");
    if (established.exitCode() != 0) {
      throw new IllegalStateException("the CRD was not established: " + established.output());
    }
  }

  /** A condition of the pool's status, if the pool and the condition exist. */
  public static Optional<Condition> condition(ReplicaPool pool, String type) {
    if (pool == null || pool.getStatus() == null || pool.getStatus().conditions == null) {
      return Optional.empty();
    }
    return pool.getStatus().conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** "True", "False", "Unknown", or null when the condition is not there. */
  public static String conditionStatus(ReplicaPool pool, String type) {
    return condition(pool, type).map(Condition::getStatus).orElse(null);
  }

  public static String conditionMessage(ReplicaPool pool, String type) {
    return condition(pool, type).map(Condition::getMessage).orElse(null);
  }

  /**
   * Edits a pool's spec as a user's {@code kubectl edit} would, again on a conflict: the operator
   * patches the pool's status meanwhile, which moves its resourceVersion under an edit.
   */
  public static ReplicaPool editSpec(
      io.fabric8.kubernetes.client.dsl.Resource<ReplicaPool> pool,
      java.util.function.UnaryOperator<ReplicaPool> change) {
    return editLatest(pool, change);
  }

  /**
   * Edits any object, again on the latest version when a write of the operator came between the
   * read and the write (409): what {@code kubectl edit} asks a user to do by hand.
   */
  public static <T> T editLatest(
      io.fabric8.kubernetes.client.dsl.Resource<T> resource,
      java.util.function.UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return resource.edit(change);
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
      }
    }
  }
}
