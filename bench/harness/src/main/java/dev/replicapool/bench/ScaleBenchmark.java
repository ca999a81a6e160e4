package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Item 6 of issue 6: a real ControlPlaneServer in this JVM and a data plane as a child process
 * (DataPlaneMain, -Xmx512m). Publishes --pools pools of --members members (10,000 by default),
 * times publish-of-the-first to ACK-of-the-last; re-publishes every pool --rounds times (a full
 * update, the table already holding 10,000 members); then one pool of pools x members members,
 * --rounds times; cold (first round) and warm (second half) are reported apart; measures the data
 * plane's heap after a full GC (jcmd GC.run, GC.heap_info) empty and with the table.
 * bench/scale/run.sh runs it.
 */
public final class ScaleBenchmark {
  private static final String TOKEN = "bench-token";
  private static final String BIG_POOL = "big/one";

  /**
   * The command line. The first rounds run while the data plane's JIT compiles the apply path (on 2
   * cores, C2 took more CPU than the applies themselves): cold and warm figures are reported apart.
   * {@code dpOpts}: extra JVM options of the data plane; {@code dpLog}: where its output goes
   * (null: discarded).
   */
  record Options(
      int pools,
      int members,
      int rounds,
      boolean verbose,
      String dpOpts,
      String logback,
      String dpLog) {
    static Options parse(String[] args) throws IOException {
      Map<String, String> a = FlagPairs.parse(args);
      return new Options(
          Integer.parseInt(a.getOrDefault("pools", "1000")),
          Integer.parseInt(a.getOrDefault("members", "10")),
          Integer.parseInt(a.getOrDefault("rounds", "10")),
          a.containsKey("verbose"),
          a.get("dp-opts"),
          a.getOrDefault("logback", ""),
          a.get("dp-log"));
    }
  }

  private final Options o;
  private final ControlPlaneServer cp;
  private final Queue<Long> acks = new ConcurrentLinkedQueue<>(); // System.nanoTime() of each

  private ScaleBenchmark(Options o, ControlPlaneServer cp) {
    this.o = o;
    this.cp = cp;
    cp.onSyncChange(pool -> acks.add(System.nanoTime()));
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    Path tokenFile = Files.createTempFile("bench-token", "");
    Files.writeString(tokenFile, TOKEN);
    Vertx vertx = Vertx.vertx();
    ControlPlaneServer cp =
        new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN));
    cp.start().await();
    cp.markInitialSyncDone();
    ScaleBenchmark bench = new ScaleBenchmark(o, cp);
    Process dp = bench.startDataPlane(tokenFile);
    bench.awaitConnected();
    System.out.printf(
        "data plane pid %d connected; heap after GC, empty table: %s%n",
        dp.pid(), HeapAfterGc.of(dp.pid()));
    bench.manyPools();
    System.out.printf(
        "RESULT data-plane heap after GC with %d members: %s%n",
        o.pools() * o.members(), HeapAfterGc.of(dp.pid()));
    bench.onePool();
    dp.destroy();
    dp.waitFor();
    vertx.close().await();
    System.exit(0);
  }

  private Process startDataPlane(Path tokenFile) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m"));
    if (o.dpOpts() != null) {
      cmd.addAll(List.of(o.dpOpts().split(" ")));
    }
    cmd.addAll(
        List.of(
            "-Dlogback.configurationFile=" + o.logback(),
            "-cp",
            System.getProperty("java.class.path"),
            "dev.replicapool.dataplane.DataPlaneMain",
            "--control-plane",
            "127.0.0.1:" + cp.port(),
            "--token-file",
            tokenFile.toString(),
            "--node",
            "scale-dp",
            "--listen",
            "127.0.0.1:0",
            "--tls-listen",
            "off",
            "--admin-port",
            "127.0.0.1:0",
            "--instances",
            "2"));
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(
            o.dpLog() != null
                ? ProcessBuilder.Redirect.to(new File(o.dpLog()))
                : ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /** Until the data plane dialled in (30 s at most), and a second more for it to settle. */
  private void awaitConnected() throws InterruptedException {
    long until = System.currentTimeMillis() + 30_000;
    while (cp.dataPlanes().isEmpty() && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    Thread.sleep(1000);
  }

  /** --rounds rounds of every pool published anew, then the RESULT line. */
  private void manyPools() throws InterruptedException {
    List<Long> times = new ArrayList<>();
    for (int round = 1; round <= o.rounds(); round++) {
      long t = publishAll(round);
      times.add(t);
      System.out.printf(
          "  push+apply %d pools x %d members (round %d%s): %d ms%n",
          o.pools(),
          o.members(),
          round,
          round == 1 ? ", into an empty table" : ", every pool replaced",
          t);
    }
    System.out.printf(
        "RESULT push+apply %d pools x %d members: cold (round 1) %d ms; warm %s%n",
        o.pools(), o.members(), times.get(0), warm(times));
  }

  /** --rounds rounds of one pool holding all the members, then the RESULT line. */
  private void onePool() throws InterruptedException {
    List<MemberSnapshot> ms = new ArrayList<>();
    for (int i = 0; i < o.pools() * o.members(); i++) {
      ms.add(
          new MemberSnapshot(
              "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255),
              8080,
              1.0,
              MemberState.Healthy));
    }
    List<Long> big = new ArrayList<>();
    for (int round = 1; round <= o.rounds(); round++) {
      long t = publishBig(ms);
      big.add(t);
      System.out.printf(
          "  push+apply one pool of %d members (round %d): %d ms%n", ms.size(), round, t);
    }
    System.out.printf(
        "RESULT push+apply one pool of %d members: cold %d ms; warm %s%n",
        ms.size(), big.get(0), warm(big));
  }

  /** Milliseconds from publishing the one big pool to its ACK. */
  private long publishBig(List<MemberSnapshot> ms) throws InterruptedException {
    PoolSnapshot s =
        PoolSnapshotBuilder.builder()
            .pool(BIG_POOL)
            .version(cp.nextVersion(BIG_POOL))
            .policy(RoutingPolicy.Adaptive)
            .hosts(List.of("big.example"))
            .members(ms)
            .build();
    long t0 = System.nanoTime();
    cp.publish(s);
    awaitSynced(BIG_POOL);
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** Milliseconds from publishing the first pool to the ACK of the last. */
  private long publishAll(int round) throws InterruptedException {
    acks.clear();
    long t0 = System.nanoTime();
    List<String> names = new ArrayList<>();
    for (int p = 0; p < o.pools(); p++) {
      names.add(publishPool(p, round));
    }
    long sent = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("  (publish calls returned after %d ms)%n", sent);
    for (String n : names) {
      awaitSynced(n);
    }
    long end = System.nanoTime();
    int[] buckets = acksPer5Ms(t0, end);
    if (o.verbose()) {
      System.out.printf("  (ACKs per 5 ms: %s)%n", Arrays.toString(buckets));
    }
    return (end - t0) / 1_000_000;
  }

  /** Pool {@code p} of the many, its ports moved by the round so that every round changes it. */
  private String publishPool(int p, int round) {
    String name = "ns" + (p % 10) + "/pool-" + p;
    List<MemberSnapshot> ms = new ArrayList<>(o.members());
    for (int m = 0; m < o.members(); m++) {
      ms.add(
          new MemberSnapshot(
              "10.1." + (p % 250) + "." + m, 8000 + p / 250 + round, 1.0, MemberState.Healthy));
    }
    cp.publish(
        PoolSnapshotBuilder.builder()
            .pool(name)
            .version(cp.nextVersion(name))
            .policy(p % 2 == 0 ? RoutingPolicy.RoundRobin : RoutingPolicy.Adaptive)
            .hosts(List.of("pool-" + p + ".example"))
            .members(ms)
            .build());
    return name;
  }

  private void awaitSynced(String pool) throws InterruptedException {
    while (!cp.syncState(pool).synced()) {
      Thread.sleep(0, 200_000);
    }
  }

  private int[] acksPer5Ms(long t0, long end) {
    int[] buckets = new int[(int) ((end - t0) / 5_000_000) + 1];
    for (long t : acks) {
      if (t >= t0 && t <= end) {
        buckets[(int) ((t - t0) / 5_000_000)]++;
      }
    }
    return buckets;
  }

  /** The warm figures: the rounds of the second half. */
  private String warm(List<Long> times) {
    int rounds = o.rounds();
    return String.format(
        "(rounds %d-%d) %s", rounds / 2 + 1, rounds, summary(times.subList(rounds / 2, rounds)));
  }

  static String summary(List<Long> ms) {
    List<Long> sorted = new ArrayList<>(ms);
    Collections.sort(sorted);
    return String.format(
        "min %d / median %d / max %d ms",
        sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
  }
}
