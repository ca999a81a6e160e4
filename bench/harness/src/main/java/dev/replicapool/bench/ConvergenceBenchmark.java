package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Item 5 of issue 6 through the real stack, as e2e's SystemHarness wires it: a real kube-apiserver
 * and etcd (LocalKubeApiServer), the operator and a data plane in this JVM, replicas as processes.
 * The data plane's ConfigStore is hooked (a TableObserver) so every applied snapshot is timestamped
 * the moment it is installed; nothing is polled.
 *
 * <ol>
 *   <li>member death (SIGKILL) to removal from the data plane's table (weight 0 / not admitted),
 *       static endpoints probed every --interval ms with --timeout ms, --kills kills;
 *   <li>lease expiry to removal: replicas renewing 900 ms Leases every 300 ms, SIGKILLed; expiry =
 *       the Lease's last renewTime + leaseDuration, removal as above;
 *   <li>publish to applied: the snapshot version is the operator's publish time in ms ({@code
 *       nextVersion} = max(last + 1, now)), so installed-at minus version is publish-to-apply.
 * </ol>
 */
public final class ConvergenceBenchmark {
  static final String TOKEN = "bench-token";

  public static void main(String[] args) throws Exception {
    Map<String, String> a = FlagPairs.parse(args);
    int kills = Integer.parseInt(a.getOrDefault("kills", "20"));
    int leaseKills = Integer.parseInt(a.getOrDefault("lease-kills", "20"));
    int interval = Integer.parseInt(a.getOrDefault("interval", "200"));
    int timeout = Integer.parseInt(a.getOrDefault("timeout", "100"));
    String crds = a.getOrDefault("crds", "crds/");

    LocalKubeApiServer api = LocalKubeApiServer.get();
    KubernetesClient client = api.newClient();
    Kubectl kubectl = new Kubectl(api.kubeConfigFile());
    check(kubectl.run("apply", "--server-side", "-f", crds));
    check(
        kubectl.run(
            "wait", "--for=condition=Established", "--timeout=60s",
            "crd/replicapools.replicapool.dev"));
    String ns = api.createNamespace(client, "bench");
    ReplicaPoolOperator operator =
        ReplicaPoolOperator.start(
            client, OperatorConfig.local(TOKEN).withNamespaces(Set.of(ns)).withPorts(0, 0));
    Vertx vertx = Vertx.vertx();
    DataPlane dp =
        DataPlane.start(
                vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of(
                            "127.0.0.1", operator.controlPlanePort(), TOKEN, "dp-bench")
                        .withBackoff(50, 500),
                    ProxySettings.defaults().withListen("127.0.0.1", 0, -1),
                    "127.0.0.1",
                    0))
            .await(30, TimeUnit.SECONDS);

    // address -> wall ms when the data plane installed a table where it is not admitted
    Map<String, Long> removedAt = new ConcurrentHashMap<>();
    Map<String, String> removedState = new ConcurrentHashMap<>();
    List<Long> publishToApply = new CopyOnWriteArrayList<>();
    dp.store()
        .addObserver(
            new TableObserver() {
              @Override
              public void installed(TableObserver.Change change) {
                RoutingTable previous = change.previous();
                RoutingTable next = change.next();
                long now = System.currentTimeMillis();
                for (PoolRuntime p : next.pools().values()) {
                  PoolRuntime before = previous.pool(p.name());
                  if (before != null && before.version() == p.version()) {
                    continue;
                  }
                  long d = now - p.version();
                  if (d >= 0 && d < 60_000) {
                    publishToApply.add(d);
                  }
                  if (before != null) { // members that left the snapshot altogether
                    Set<String> now2 = new java.util.HashSet<>();
                    p.snapshot().members().forEach(m -> now2.add(m.address()));
                    for (MemberSnapshot m : before.snapshot().members()) {
                      if (!now2.contains(m.address())) {
                        removedAt.putIfAbsent(m.address(), now);
                        removedState.putIfAbsent(m.address(), "gone");
                      }
                    }
                  }
                  for (MemberSnapshot m : p.snapshot().members()) {
                    boolean admitted =
                        m.weight() > 0
                            && (m.state() == MemberState.Healthy
                                || m.state() == MemberState.Degraded);
                    if (!admitted) {
                      removedAt.putIfAbsent(m.address(), now);
                      removedState.putIfAbsent(m.address(), m.state() + "/w=" + m.weight());
                    } else {
                      removedAt.remove(m.address());
                      removedState.remove(m.address());
                    }
                  }
                }
              }
            });

    System.out.println("# member death to removal: static endpoints, probe interval " + interval
        + " ms, timeout " + timeout + " ms, unhealthyThreshold 1, " + kills + " kills");
    List<ReplicaProcess> rs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      rs.add(ReplicaProcess.start("s" + i, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    }
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("deaths");
    pool.getMetadata().setNamespace(ns);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    for (ReplicaProcess r : rs) {
      spec.endpoints.add(new StaticEndpoint(r.host(), r.port()));
    }
    spec.route = new Route();
    spec.route.hosts = List.of("deaths.local");
    spec.healthCheck.intervalMillis = interval;
    spec.healthCheck.timeoutMillis = timeout;
    spec.healthCheck.unhealthyThreshold = 1;
    pool.setSpec(spec);
    client.resource(pool).create();
    String poolName = ns + "/deaths";
    waitAdmitted(dp, poolName, 3, 30_000);

    List<Long> death = new ArrayList<>();
    for (int k = 0; k < kills; k++) {
      int idx = k % 3;
      ReplicaProcess victim = rs.get(idx);
      String addr = victim.address();
      Thread.sleep(100 + (k * 37) % interval); // kills land at varied phases of the probe cycle
      removedAt.remove(addr);
      removedState.remove(addr);
      long t0 = System.currentTimeMillis();
      victim.kill();
      long deadline = t0 + 10_000;
      while (!removedAt.containsKey(addr) && System.currentTimeMillis() < deadline) {
        Thread.sleep(1);
      }
      Long at = removedAt.get(addr);
      death.add(at == null ? -1 : at - t0);
      System.out.printf("kill %2d %s: removed after %d ms (%s)%n", k + 1, addr,
          at == null ? -1 : at - t0, removedState.get(addr));
      ReplicaProcess again = ReplicaProcess.start(victim.name(), victim.host(), victim.port());
      rs.set(idx, again);
      waitAdmitted(dp, poolName, 3, 30_000);
    }
    for (ReplicaProcess r : rs) {
      r.close();
    }
    summary("death to removal (ms)", death, interval + timeout + 20);

    System.out.println("# lease expiry to removal: Leases of 900 ms renewed every 300 ms, health"
        + " check off, " + leaseKills + " kills");
    ReplicaPool lp = new ReplicaPool();
    lp.getMetadata().setName("leases");
    lp.getMetadata().setNamespace(ns);
    ReplicaPoolSpec ls = new ReplicaPoolSpec();
    ls.registration = new Registration();
    ls.route = new Route();
    ls.route.hosts = List.of("leases.local");
    ls.healthCheck.enabled = false;
    lp.setSpec(ls);
    client.resource(lp).create();
    String leasePool = ns + "/leases";
    List<Long> expiry = new ArrayList<>();
    List<Long> killToRemoval = new ArrayList<>();
    List<ReplicaProcess> lrs = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      lrs.add(registered(api, ns, "l" + i));
    }
    waitAdmitted(dp, leasePool, 2, 30_000);
    for (int k = 0; k < leaseKills; k++) {
      ReplicaProcess victim = lrs.get(k % 2);
      String addr = victim.address();
      // The replica restarted for the previous kill is a JVM still starting on the same 2 cores;
      // let it settle so the expiry measured is the operator's, not that start's CPU contention.
      Thread.sleep(1_500 + (k * 53) % 300);
      removedAt.remove(addr);
      removedState.remove(addr);
      long t0 = System.currentTimeMillis();
      victim.kill();
      long deadline = t0 + 10_000;
      while (!removedAt.containsKey(addr) && System.currentTimeMillis() < deadline) {
        Thread.sleep(1);
      }
      Long at = removedAt.get(addr);
      // the lease's last renewal, as the API server stored it (same machine clock)
      Lease lease =
          client.leases().inNamespace(ns).list().getItems().stream()
              .filter(l -> l.getSpec().getHolderIdentity() != null
                  && l.getMetadata().getName().contains(victim.name()))
              .findFirst()
              .orElse(null);
      long renew =
          lease == null || lease.getSpec().getRenewTime() == null
              ? -1
              : lease.getSpec().getRenewTime().toInstant().toEpochMilli();
      long dur = 900; // the Registration's leaseDurationMillis
      long e = (at == null || renew < 0) ? -1 : at - (renew + dur);
      expiry.add(e);
      killToRemoval.add(at == null ? -1 : at - t0);
      System.out.printf("lease kill %d %s: removed %d ms after the kill, %d ms after lease expiry%n",
          k + 1, addr, at == null ? -1 : at - t0, e);
      ReplicaProcess again = registered(api, ns, victim.name());
      lrs.set(k % 2, again);
      waitAdmitted(dp, leasePool, 2, 30_000);
    }
    for (ReplicaProcess r : lrs) {
      r.close();
    }
    summary("kill to removal, leases (ms)", killToRemoval, -1);
    summary("lease expiry to removal (ms)", expiry, 50);
    summary("operator publish to data-plane applied (ms)", publishToApply, 10);
    dp.stop().await(10, TimeUnit.SECONDS);
    operator.close();
    vertx.close().await();
    client.close();
    System.exit(0);
  }

  static ReplicaProcess registered(LocalKubeApiServer api, String ns, String name) {
    String host = "127.0.0.1";
    return ReplicaProcess.start(
        name, host, ReplicaProcess.freePort(host),
        "--register", ns + "/leases", "--kubeconfig", api.kubeConfigFile().toString(),
        "--lease-ms", "900", "--renew-ms", "300");
  }

  static void waitAdmitted(DataPlane dp, String pool, int n, long ms) throws InterruptedException {
    long end = System.currentTimeMillis() + ms;
    while (System.currentTimeMillis() < end) {
      PoolRuntime p = dp.store().table().pool(pool);
      if (p != null
          && p.snapshot().members().stream()
                  .filter(
                      m ->
                          m.weight() > 0
                              && (m.state() == MemberState.Healthy
                                  || m.state() == MemberState.Degraded))
                  .count()
              == n) {
        return;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(pool + " did not reach " + n + " admitted members");
  }

  static void summary(String what, List<Long> xs, long target) {
    List<Long> v = new ArrayList<>(xs);
    Collections.sort(v);
    if (v.isEmpty()) {
      System.out.println(what + ": no samples");
      return;
    }
    long p50 = v.get((int) Math.ceil(0.5 * v.size()) - 1);
    long p99 = v.get((int) Math.ceil(0.99 * v.size()) - 1);
    System.out.printf("RESULT %s: n=%d min=%d p50=%d p99=%d max=%d%s%n", what, v.size(), v.get(0),
        p50, p99, v.get(v.size() - 1), target > 0 ? " target<=" + target : "");
  }

  static void check(Kubectl.Result r) {
    if (r.exitCode() != 0) {
      throw new IllegalStateException(r.output());
    }
  }
}
