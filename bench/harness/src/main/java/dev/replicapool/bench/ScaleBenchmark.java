package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Item 6 of issue 6: a real ControlPlaneServer in this JVM and a data plane as a child process
 * (DataPlaneMain, -Xmx512m). Publishes --pools pools of --members members (10,000 by default),
 * times publish-of-the-first to ACK-of-the-last; re-publishes every pool --rounds times (a full
 * update, the table already holding 10,000 members); then one pool of pools x members members,
 * --rounds times; cold (first round) and warm (second half) are reported apart; measures
 * the data plane's heap after a full GC (jcmd GC.run, GC.heap_info) empty and with the table.
 */
public final class ScaleBenchmark {
  public static void main(String[] args) throws Exception {
    Map<String, String> a = FlagPairs.parse(args);
    int pools = Integer.parseInt(a.getOrDefault("pools", "1000"));
    int members = Integer.parseInt(a.getOrDefault("members", "10"));
    // The first rounds run while the data plane's JIT compiles the apply path (on 2 cores, C2
    // took more CPU than the applies themselves): cold and warm figures are reported apart.
    int rounds = Integer.parseInt(a.getOrDefault("rounds", "10"));
    VERBOSE = a.containsKey("verbose");
    String token = "bench-token";
    Path tokenFile = Files.createTempFile("bench-token", "");
    Files.writeString(tokenFile, token);
    Vertx vertx = Vertx.vertx();
    ControlPlaneServer cp =
        new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, token));
    cp.start().await();
    cp.markInitialSyncDone();
    cp.onSyncChange(pool -> ACKS.add(System.nanoTime()));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m"));
    if (a.containsKey("dp-opts")) {
      cmd.addAll(List.of(a.get("dp-opts").split(" ")));
    }
    cmd.addAll(List.of("-Dlogback.configurationFile=" + a.getOrDefault("logback", ""),
        "-cp", System.getProperty("java.class.path"),
        "dev.replicapool.dataplane.DataPlaneMain",
        "--control-plane", "127.0.0.1:" + cp.port(), "--token-file", tokenFile.toString(),
        "--node", "scale-dp", "--listen", "127.0.0.1:0", "--tls-listen", "off",
        "--admin-port", "127.0.0.1:0", "--instances", "2"));
    Process dp =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(a.containsKey("dp-log")
                ? ProcessBuilder.Redirect.to(new java.io.File(a.get("dp-log")))
                : ProcessBuilder.Redirect.DISCARD)
            .start();
    long until = System.currentTimeMillis() + 30_000;
    while (cp.dataPlanes().isEmpty() && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    Thread.sleep(1000);
    System.out.printf("data plane pid %d connected; heap after GC, empty table: %s%n", dp.pid(),
        heap(dp.pid()));

    List<Long> times = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      long t = publishAll(cp, pools, members, round);
      times.add(t);
      System.out.printf("  push+apply %d pools x %d members (round %d%s): %d ms%n", pools,
          members, round, round == 1 ? ", into an empty table" : ", every pool replaced", t);
    }
    System.out.printf("RESULT push+apply %d pools x %d members: cold (round 1) %d ms; warm"
        + " (rounds %d-%d) %s%n", pools, members, times.get(0), rounds / 2 + 1, rounds,
        summary(times.subList(rounds / 2, rounds)));
    System.out.printf("RESULT data-plane heap after GC with %d members: %s%n", pools * members,
        heap(dp.pid()));
    // one pool holding all the members
    List<MemberSnapshot> ms = new ArrayList<>();
    for (int i = 0; i < pools * members; i++) {
      ms.add(new MemberSnapshot("10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255),
          8080, 1.0, MemberState.Healthy));
    }
    List<Long> big = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      String name = "big/one";
      PoolSnapshot s = PoolSnapshotBuilder.builder().pool(name).version(cp.nextVersion(name))
          .policy(RoutingPolicy.Adaptive).hosts(List.of("big.example")).members(ms).build();
      long t0 = System.nanoTime();
      cp.publish(s);
      while (!cp.syncState(name).synced()) {
        Thread.sleep(0, 200_000);
      }
      long t = (System.nanoTime() - t0) / 1_000_000;
      big.add(t);
      System.out.printf("  push+apply one pool of %d members (round %d): %d ms%n", ms.size(),
          round, t);
    }
    System.out.printf("RESULT push+apply one pool of %d members: cold %d ms; warm (rounds %d-%d)"
        + " %s%n", ms.size(), big.get(0), rounds / 2 + 1, rounds,
        summary(big.subList(rounds / 2, rounds)));
    dp.destroy();
    dp.waitFor();
    vertx.close().await();
    System.exit(0);
  }

  static boolean VERBOSE;
  static final java.util.Queue<Long> ACKS = new java.util.concurrent.ConcurrentLinkedQueue<>();

  static long publishAll(ControlPlaneServer cp, int pools, int members, int round)
      throws InterruptedException {
    ACKS.clear();
    long t0 = System.nanoTime();
    List<String> names = new ArrayList<>();
    for (int p = 0; p < pools; p++) {
      String name = "ns" + (p % 10) + "/pool-" + p;
      List<MemberSnapshot> ms = new ArrayList<>(members);
      for (int m = 0; m < members; m++) {
        ms.add(new MemberSnapshot("10.1." + (p % 250) + "." + m, 8000 + p / 250 + round, 1.0,
            MemberState.Healthy));
      }
      cp.publish(PoolSnapshotBuilder.builder().pool(name).version(cp.nextVersion(name))
          .policy(p % 2 == 0 ? RoutingPolicy.RoundRobin : RoutingPolicy.Adaptive)
          .hosts(List.of("pool-" + p + ".example")).members(ms).build());
      names.add(name);
    }
    long sent = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("  (publish calls returned after %d ms)%n", sent);
    for (String n : names) {
      while (!cp.syncState(n).synced()) {
        Thread.sleep(0, 200_000);
      }
    }
    long end = System.nanoTime();
    int[] buckets = new int[(int) ((end - t0) / 5_000_000) + 1];
    for (long t : ACKS) {
      if (t >= t0 && t <= end) {
        buckets[(int) ((t - t0) / 5_000_000)]++;
      }
    }
    if (VERBOSE) {
      System.out.printf("  (ACKs per 5 ms: %s)%n", java.util.Arrays.toString(buckets));
    }
    return (end - t0) / 1_000_000;
  }

  static String summary(List<Long> ms) {
    List<Long> sorted = new ArrayList<>(ms);
    java.util.Collections.sort(sorted);
    return String.format("min %d / median %d / max %d ms", sorted.get(0),
        sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
  }

  static String heap(long pid) throws Exception {
    run("jcmd", String.valueOf(pid), "GC.run");
    StringBuilder used = new StringBuilder();
    for (String line : run("jcmd", String.valueOf(pid), "GC.heap_info")) {
      if (line.contains("used") && used.length() == 0) {
        used.append(line.strip());
      }
    }
    return used.toString();
  }

  static List<String> run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
      String l;
      while ((l = r.readLine()) != null) {
        out.add(l);
      }
    }
    p.waitFor();
    return out;
  }
}
