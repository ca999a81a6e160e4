package dev.replicapool.dataplane.training;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.DataPlaneArgs;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A data plane and the control plane feeding it, on loopback ports the system picks, in a Vert.x
 * the caller owns: what the training run and the warm-up drive their traffic through. The data
 * plane is started from its command line as the image starts it; the caller starts its members and
 * publishes its pools ({@link #pool}, {@link #publish}).
 */
final class LoopbackDataPlane {
  static final long WAIT_SECONDS = 30;

  private LoopbackDataPlane() {}

  /** What is done with the data plane once it runs: returns the requests routed. */
  interface Traffic {
    int through(DataPlane dp, ControlPlaneServer cp) throws Exception;
  }

  /**
   * Starts a control plane and a data plane named {@code node} in {@code vertx}, runs {@code
   * traffic} through them, and stops them both.
   */
  static int with(Vertx vertx, String node, Traffic traffic) throws Exception {
    String token = UUID.randomUUID().toString();
    Path tokenFile = Files.createTempFile("replicapool-training", ".token");
    Files.writeString(tokenFile, token);
    ControlPlaneServer cp =
        new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, token));
    DataPlane dp = null;
    try {
      int cpPort = cp.start().await(WAIT_SECONDS, TimeUnit.SECONDS);
      DataPlane.Config config =
          DataPlaneArgs.parse(
              new String[] {
                "--control-plane=127.0.0.1:" + cpPort,
                "--token-file=" + tokenFile,
                "--node=" + node,
                "--listen=127.0.0.1:0",
                "--tls-listen=off",
                "--admin-port=127.0.0.1:0",
                "--drain-seconds=0",
                "--access-log=/dev/null"
              },
              Map.of());
      dp = DataPlane.start(vertx, config).await(WAIT_SECONDS, TimeUnit.SECONDS);
      return traffic.through(dp, cp);
    } finally {
      if (dp != null) {
        dp.stop().await(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      cp.stop().await(WAIT_SECONDS, TimeUnit.SECONDS);
      Files.deleteIfExists(tokenFile);
    }
  }

  /**
   * A pool of members on {@code memberPorts} as the operator sends one a user applied with only its
   * members, host and protocol: the CRD's defaults filled in (RoundRobin, the retry budget, outlier
   * detection, the Adaptive parameters, no timeouts), so that the requests take the paths a default
   * pool's take.
   */
  static PoolSnapshot pool(String name, String host, String appProtocol, int... memberPorts) {
    List<MemberSnapshot> members = new ArrayList<>();
    for (int port : memberPorts) {
      members.add(new MemberSnapshot("127.0.0.1", port, 1.0, MemberState.Healthy));
    }
    return PoolSnapshotBuilder.builder()
        .pool(name)
        .policy(RoutingPolicy.RoundRobin)
        .adaptive(new AdaptiveRouting())
        .outlierDetection(new OutlierDetection())
        .retry(new Retry())
        .timeouts(new Timeouts())
        .maxRequestsPerMember(0)
        .panicThresholdPercent(0)
        .hosts(List.of(host))
        .appProtocol(appProtocol)
        .members(members)
        .build();
  }

  /** Publishes {@code s} and waits until the data plane has applied it. */
  static void publish(ControlPlaneServer cp, PoolSnapshot s) throws InterruptedException {
    PoolSnapshot versioned =
        PoolSnapshotBuilder.builder(s).version(cp.nextVersion(s.pool())).build();
    if (!cp.publish(versioned)) {
      throw new IllegalStateException("pool " + s.pool() + " was not published");
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!cp.syncState(s.pool()).synced()) {
      if (!cp.syncState(s.pool()).nacks().isEmpty()) {
        throw new IllegalStateException(s.pool() + " refused: " + cp.syncState(s.pool()).nacks());
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException(s.pool() + " not applied in " + WAIT_SECONDS + " s");
      }
      Thread.sleep(10); // a one-off wait in a build step; nothing else to await on here
    }
  }

  /**
   * {@code traffic}, started on one event-loop context, awaited: Vert.x's client, called from a
   * thread outside Vert.x, now and then never completes a request.
   */
  static int onLoop(Vertx vertx, Supplier<Future<Integer>> traffic) throws Exception {
    Context loop = vertx.getOrCreateContext();
    Promise<Integer> done = Promise.promise();
    loop.runOnContext(v -> traffic.get().onComplete(done));
    return done.future().await(WAIT_SECONDS * 4, TimeUnit.SECONDS);
  }
}
