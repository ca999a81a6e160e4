package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Item 5 of issue 6 through the real stack ({@link ConvergenceStack}: a real kube-apiserver, the
 * operator and a data plane in this JVM), replicas as processes; the data plane's table is watched
 * by a {@link TableWatch}. bench/convergence/run.sh runs it; its RESULT lines are what
 * docs/BENCHMARKS.md quotes.
 *
 * <ol>
 *   <li>member death (SIGKILL) to removal from the data plane's table (weight 0 / not admitted),
 *       static endpoints probed every --interval ms with --timeout ms, --kills kills;
 *   <li>lease expiry to removal: replicas renewing 900 ms Leases every 300 ms, SIGKILLed; expiry =
 *       the Lease's last renewTime + leaseDuration, removal as above;
 *   <li>publish to applied: the snapshot version is the operator's publish time in ms ({@code
 *       nextVersion} = max(last + 1, now)), so installed-at minus version is publish-to-apply.
 * </ol>
 *
 * <p>One instance is one run: its options, the stack and the watch on the data plane's table.
 */
public record ConvergenceBenchmark(Options o, ConvergenceStack stack, TableWatch watch) {
  private static final String HOST = "127.0.0.1";
  private static final long LEASE_MILLIS = 900; // the Registration's leaseDurationMillis
  private static final long RENEW_MILLIS = 300;

  /** The command line: kills per phase, the static pool's probe interval and timeout, the CRDs. */
  record Options(int kills, int leaseKills, int interval, int timeout, String crds) {
    static Options parse(String[] args) throws IOException {
      Map<String, String> a = FlagPairs.parse(args);
      return new Options(
          Integer.parseInt(a.getOrDefault("kills", "20")),
          Integer.parseInt(a.getOrDefault("lease-kills", "20")),
          Integer.parseInt(a.getOrDefault("interval", "200")),
          Integer.parseInt(a.getOrDefault("timeout", "100")),
          a.getOrDefault("crds", "crds/"));
    }
  }

  /** One kill of a Lease-registered replica: ms from the kill and from its Lease's expiry. */
  private record LeaseRemoval(long afterKill, long afterExpiry) {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    ConvergenceStack stack = ConvergenceStack.start(Path.of(o.crds()));
    TableWatch watch = TableWatch.on(stack.dataPlane());
    ConvergenceBenchmark bench = new ConvergenceBenchmark(o, stack, watch);
    bench.deathToRemoval();
    bench.leaseExpiryToRemoval();
    summary("operator publish to data-plane applied (ms)", watch.publishToApply(), 10);
    stack.stop();
    System.exit(0);
  }

  /** Phase 1: three static endpoints, one SIGKILLed at a time and started again. */
  private void deathToRemoval() throws Exception {
    System.out.println(
        "# member death to removal: static endpoints, probe interval "
            + o.interval()
            + " ms, timeout "
            + o.timeout()
            + " ms, unhealthyThreshold 1, "
            + o.kills()
            + " kills");
    List<ReplicaProcess> rs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      rs.add(ReplicaProcess.start("s" + i, HOST, ReplicaProcess.freePort(HOST)));
    }
    stack.client().resource(staticPool(rs)).create();
    String pool = stack.namespace() + "/deaths";
    watch.awaitAdmitted(pool, 3, 30_000);
    List<Long> death = new ArrayList<>();
    for (int k = 0; k < o.kills(); k++) {
      death.add(killStatic(rs, k, pool));
    }
    for (ReplicaProcess r : rs) {
      r.close();
    }
    summary("death to removal (ms)", death, o.interval() + o.timeout() + 20);
  }

  private ReplicaPool staticPool(List<ReplicaProcess> rs) {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    for (ReplicaProcess r : rs) {
      spec.endpoints.add(new StaticEndpoint(r.host(), r.port()));
    }
    spec.route = new Route();
    spec.route.hosts = List.of("deaths.local");
    spec.healthCheck.intervalMillis = o.interval();
    spec.healthCheck.timeoutMillis = o.timeout();
    spec.healthCheck.unhealthyThreshold = 1;
    return pool("deaths", spec);
  }

  /** Kill {@code k}: member k % 3 dies and comes back on its port; ms to its removal. */
  private long killStatic(List<ReplicaProcess> rs, int k, String pool) throws Exception {
    int idx = k % 3;
    ReplicaProcess victim = rs.get(idx);
    Thread.sleep(100 + (k * 37) % o.interval()); // kills land at varied phases of the probe cycle
    TableWatch.Removal r = watch.kill(victim);
    System.out.printf(
        "kill %2d %s: removed after %d ms (%s)%n", k + 1, victim.address(), r.afterKill(), r.how());
    rs.set(idx, ReplicaProcess.start(victim.name(), victim.host(), victim.port()));
    watch.awaitAdmitted(pool, 3, 30_000);
    return r.afterKill();
  }

  /** Phase 2: two Lease-registered replicas, health check off, one SIGKILLed at a time. */
  private void leaseExpiryToRemoval() throws Exception {
    System.out.println(
        "# lease expiry to removal: Leases of 900 ms renewed every 300 ms, health"
            + " check off, "
            + o.leaseKills()
            + " kills");
    stack.client().resource(leasePool()).create();
    String pool = stack.namespace() + "/leases";
    List<Long> expiry = new ArrayList<>();
    List<Long> killToRemoval = new ArrayList<>();
    List<ReplicaProcess> lrs = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      lrs.add(registered("l" + i));
    }
    watch.awaitAdmitted(pool, 2, 30_000);
    for (int k = 0; k < o.leaseKills(); k++) {
      LeaseRemoval r = killRegistered(lrs, k, pool);
      expiry.add(r.afterExpiry());
      killToRemoval.add(r.afterKill());
    }
    for (ReplicaProcess r : lrs) {
      r.close();
    }
    summary("kill to removal, leases (ms)", killToRemoval, -1);
    summary("lease expiry to removal (ms)", expiry, 50);
  }

  private ReplicaPool leasePool() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.registration = new Registration();
    spec.route = new Route();
    spec.route.hosts = List.of("leases.local");
    spec.healthCheck.enabled = false;
    return pool("leases", spec);
  }

  /** Kill {@code k}: replica k % 2 dies and a new one registers under its name. */
  private LeaseRemoval killRegistered(List<ReplicaProcess> lrs, int k, String pool)
      throws Exception {
    ReplicaProcess victim = lrs.get(k % 2);
    // The replica restarted for the previous kill is a JVM still starting on the same 2 cores;
    // let it settle so the expiry measured is the operator's, not that start's CPU contention.
    Thread.sleep(1_500 + (k * 53) % 300);
    TableWatch.Removal r = watch.kill(victim);
    long renew = lastRenewal(victim.name());
    long e = (r.removedAt() == null || renew < 0) ? -1 : r.removedAt() - (renew + LEASE_MILLIS);
    System.out.printf(
        "lease kill %d %s: removed %d ms after the kill, %d ms after lease expiry%n",
        k + 1, victim.address(), r.afterKill(), e);
    lrs.set(k % 2, registered(victim.name()));
    watch.awaitAdmitted(pool, 2, 30_000);
    return new LeaseRemoval(r.afterKill(), e);
  }

  /** The replica's Lease's last renewal in wall ms, as the API server stored it; -1 if none. */
  private long lastRenewal(String replica) {
    Lease lease =
        stack.client().leases().inNamespace(stack.namespace()).list().getItems().stream()
            .filter(
                l ->
                    l.getSpec().getHolderIdentity() != null
                        && l.getMetadata().getName().contains(replica))
            .findFirst()
            .orElse(null);
    return lease == null || lease.getSpec().getRenewTime() == null
        ? -1
        : lease.getSpec().getRenewTime().toInstant().toEpochMilli();
  }

  private ReplicaProcess registered(String name) {
    return ReplicaProcess.startRegistered(
        name,
        HOST,
        stack.namespace() + "/leases",
        stack.api().kubeConfigFile(),
        LEASE_MILLIS,
        RENEW_MILLIS);
  }

  private ReplicaPool pool(String name, ReplicaPoolSpec spec) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(stack.namespace());
    pool.setSpec(spec);
    return pool;
  }

  /** One RESULT line: nearest-rank p50 and p99 of the samples, and the target when there is one. */
  static void summary(String what, List<Long> xs, long target) {
    List<Long> v = new ArrayList<>(xs);
    Collections.sort(v);
    if (v.isEmpty()) {
      System.out.println(what + ": no samples");
      return;
    }
    long p50 = v.get((int) Math.ceil(0.5 * v.size()) - 1);
    long p99 = v.get((int) Math.ceil(0.99 * v.size()) - 1);
    System.out.printf(
        "RESULT %s: n=%d min=%d p50=%d p99=%d max=%d%s%n",
        what,
        v.size(),
        v.get(0),
        p50,
        p99,
        v.get(v.size() - 1),
        target > 0 ? " target<=" + target : "");
  }
}
