package dev.replicapool.operator.probing;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.OperatingSystemMXBean;
import io.vertx.core.Vertx;
import java.io.File;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Probes many members across many pools with one {@link Prober} and reports what it costs the
 * operator's process: CPU time over wall time, heap after GC, and the probes' success and latency.
 * The members are real HTTP servers on 127.0.0.1 in separate JVMs ({@link ProbeBenchServers}), one
 * port each, so that every member is its own origin with its own kept-alive connection, as Pods
 * are.
 *
 * <p>Options (defaults): --members 10000 --pools 1000 --interval 1000 --timeout 500 --warmup 10
 * --duration 60 --scheduling WHEEL|TIMERS (WHEEL) --tick 5 --max-in-flight 4096 --max-connecting
 * 128 --server-processes 2 --first-port 10000 (member ports are taken from there up, below the
 * ephemeral range). Run it with bench/probing/run.sh, which sets -Xmx512m.
 */
public final class ProbeBenchmark {
  private static final int MAX_MS = 5_000;

  private ProbeBenchmark() {}

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> opt = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    int members = Integer.parseInt(opt.getOrDefault("members", "10000"));
    int pools = Integer.parseInt(opt.getOrDefault("pools", "1000"));
    long interval = Long.parseLong(opt.getOrDefault("interval", "1000"));
    long timeout = Long.parseLong(opt.getOrDefault("timeout", "500"));
    int warmup = Integer.parseInt(opt.getOrDefault("warmup", "10"));
    int duration = Integer.parseInt(opt.getOrDefault("duration", "60"));
    Prober.Scheduling scheduling =
        Prober.Scheduling.valueOf(opt.getOrDefault("scheduling", "WHEEL"));
    long tick = Long.parseLong(opt.getOrDefault("tick", "5"));
    int maxInFlight = Integer.parseInt(opt.getOrDefault("max-in-flight", "4096"));
    int maxConnecting = Integer.parseInt(opt.getOrDefault("max-connecting", "128"));
    int serverProcesses = Integer.parseInt(opt.getOrDefault("server-processes", "2"));
    int firstPort = Integer.parseInt(opt.getOrDefault("first-port", "10000"));

    System.out.printf(
        Locale.ROOT,
        "probing benchmark: %d members in %d pools, interval %d ms, timeout %d ms, %s,"
            + " start-up until every member answered, then warm-up %d s, measured %d s%n",
        members,
        pools,
        interval,
        timeout,
        scheduling,
        warmup,
        duration);
    System.out.printf(
        Locale.ROOT,
        "machine: %d cpus, JVM max heap %d MiB, java %s%n",
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20,
        System.getProperty("java.version"));

    String load0 = loadAverage();
    // 1. Member servers in child JVMs.
    List<Process> servers = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    Path dir = Files.createTempDirectory("probe-bench");
    long maxSeconds = warmup + duration + 180L;
    for (int s = 0; s < serverProcesses; s++) {
      int count = members / serverProcesses + (s < members % serverProcesses ? 1 : 0);
      Path portsFile = dir.resolve("ports-" + s);
      ProcessBuilder pb =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              // Room enough that the members never pause long: a pause of the member servers
              // times out all their probes at once, which measures the servers, not the prober.
              "-Xms1g",
              "-Xmx1g",
              "-XX:+UseParallelGC",
              "-Dlogback.configurationFile=" + System.getProperty("logback.configurationFile", ""),
              "-cp",
              System.getProperty("java.class.path"),
              ProbeBenchServers.class.getName(),
              Integer.toString(count),
              portsFile.toString(),
              Long.toString(maxSeconds),
              Integer.toString(firstPort + s * (members / serverProcesses + 1000)));
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
      servers.add(pb.start());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> servers.forEach(Process::destroy)));
    for (int s = 0; s < serverProcesses; s++) {
      Path portsFile = dir.resolve("ports-" + s);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!Files.exists(portsFile)) {
        if (System.nanoTime() > deadline || !servers.get(s).isAlive()) {
          throw new IllegalStateException("member servers did not start");
        }
        Thread.sleep(100); // polling a child process, not a test wait
      }
      for (String line : Files.readAllLines(portsFile)) {
        if (!line.isBlank()) {
          ports.add(Integer.parseInt(line.trim()));
        }
      }
    }
    System.out.printf(Locale.ROOT, "%d member servers listening%n", ports.size());

    // 2. The prober and what it reports.
    LongAdder ok = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicLongArray histogram = new AtomicLongArray(MAX_MS + 1);
    Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    AtomicBoolean measuring = new AtomicBoolean();
    Set<String> answered = ConcurrentHashMap.newKeySet();
    AtomicLong allAnsweredNanos = new AtomicLong();
    LongAdder warmOk = new LongAdder();
    LongAdder warmFailed = new LongAdder();
    AfterGc afterGc = new AfterGc();
    Vertx vertx = Vertx.vertx();
    Prober prober =
        new Prober(
            vertx,
            r -> {
              if (r.success() && answered.size() < members && answered.add(r.address())) {
                if (answered.size() == members) {
                  allAnsweredNanos.set(System.nanoTime());
                }
              }
              if (!measuring.get()) {
                if (r.success()) {
                  warmOk.increment();
                } else {
                  warmFailed.increment();
                }
                return;
              }
              if (r.success()) {
                ok.increment();
              } else {
                failed.increment();
                String e = r.error() == null ? "?" : r.error().replaceAll("[0-9]+", "N");
                if (errors.size() < 20 || errors.containsKey(e)) {
                  errors.computeIfAbsent(e, k -> new LongAdder()).increment();
                }
              }
              histogram.incrementAndGet((int) Math.min(MAX_MS, Math.max(0, r.latencyMillis())));
            },
            new Prober.Options(
                scheduling, tick, maxInFlight, maxConnecting, "replicapool-bench/1"));
    int perPool = Math.max(1, members / pools);
    long trackedNanos = System.nanoTime();
    for (int i = 0; i < members; i++) {
      int port = ports.get(i);
      prober.track(
          "bench/pool-" + (i / perPool),
          "127.0.0.1:" + port,
          "127.0.0.1",
          port,
          "/healthz",
          interval,
          timeout);
    }

    // 3. Start-up: until every member answered once (at most 180 s), then a warm-up for the JIT.
    long startupDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (allAnsweredNanos.get() == 0 && System.nanoTime() < startupDeadline) {
      Thread.sleep(200); // polling the benchmark's own counters, not a test wait
    }
    Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> threadCpu0 = threadCpu(threads);
    afterGc.reset();
    long cpu0 = os.getProcessCpuTime();
    long gcCount0 = gcCount();
    long gcTime0 = gcTime();
    Prober.Stats stats0 = prober.stats();
    long wall0 = System.nanoTime();
    measuring.set(true);
    long maxUsed = 0;
    long windowCpu = cpu0;
    long windowWall = wall0;
    long windowOk = 0;
    long windowFailed = 0;
    for (int s = 0; s < duration; s++) {
      Thread.sleep(1_000);
      maxUsed = Math.max(maxUsed, heapUsed());
      if ((s + 1) % 10 == 0 || s + 1 == duration) {
        long c = os.getProcessCpuTime();
        long w = System.nanoTime();
        System.out.printf(
            Locale.ROOT,
            "  %3d s: last %.0f s %d ok, %d failed, cpu %.2f cores; heap used %d MiB, %d fds%n",
            s + 1,
            (w - windowWall) / 1e9,
            ok.sum() - windowOk,
            failed.sum() - windowFailed,
            (c - windowCpu) / (double) (w - windowWall),
            heapUsed() >> 20,
            countFds());
        windowCpu = c;
        windowWall = w;
        windowOk = ok.sum();
        windowFailed = failed.sum();
      }
    }
    measuring.set(false);
    long wall = System.nanoTime() - wall0;
    long cpu = os.getProcessCpuTime() - cpu0;
    Prober.Stats stats = prober.stats();
    Map<Long, Long> threadCpu1 = threadCpu(threads);
    long gcCount = gcCount() - gcCount0;
    long gcTime = gcTime() - gcTime0;
    long maxUsedAfterGc = afterGc.max.get();
    System.gc();
    System.gc();
    long afterFullGc = heapUsed();
    long fds = countFds();

    // 4. Report.
    long total = ok.sum() + failed.sum();
    double seconds = wall / 1e9;
    System.out.println();
    System.out.println("== result ==");
    System.out.printf(Locale.ROOT, "scheduling             %s (tick %d ms)%n", scheduling, tick);
    System.out.printf(
        Locale.ROOT,
        "start-up               every member answered 2xx %s after track; start-up and warm-up"
            + " probes %d ok, %d failed%n",
        allAnsweredNanos.get() == 0
            ? "never (" + answered.size() + " did)"
            : String.format(Locale.ROOT, "%.1f s", (allAnsweredNanos.get() - trackedNanos) / 1e9),
        warmOk.sum(),
        warmFailed.sum());
    System.out.printf(Locale.ROOT, "wall                   %.1f s%n", seconds);
    System.out.printf(
        Locale.ROOT,
        "probes                 %d (%.0f/s, expected %.0f/s)%n",
        total,
        total / seconds,
        members * 1000.0 / interval);
    System.out.printf(
        Locale.ROOT, "success                %d (%.3f %%)%n", ok.sum(), 100.0 * ok.sum() / total);
    errors.forEach((e, n) -> System.out.printf(Locale.ROOT, "  failed: %6d  %s%n", n.sum(), e));
    System.out.printf(
        Locale.ROOT,
        "skipped (in flight)    %d, shed (over %d in flight or %d connecting) %d, timed out %d%n",
        stats.skipped() - stats0.skipped(),
        maxInFlight,
        maxConnecting,
        stats.shed() - stats0.shed(),
        stats.timedOut() - stats0.timedOut());
    System.out.printf(
        Locale.ROOT,
        "latency ms             p50 %d  p90 %d  p99 %d  p99.9 %d  max %d%n",
        percentile(histogram, total, 0.50),
        percentile(histogram, total, 0.90),
        percentile(histogram, total, 0.99),
        percentile(histogram, total, 0.999),
        percentile(histogram, total, 1.0));
    System.out.printf(
        Locale.ROOT,
        "process cpu            %.3f cores (%.1f %% of one core)%n",
        cpu / (double) wall,
        100.0 * cpu / wall);
    System.out.printf(Locale.ROOT, "busiest threads (cpu share of one core):%n");
    topThreads(threads, threadCpu0, threadCpu1, wall).forEach(l -> System.out.println("  " + l));
    System.out.printf(
        Locale.ROOT,
        "heap                   after full GC %d MiB, max after any GC %d MiB, max used %d MiB,"
            + " limit %d MiB%n",
        afterFullGc >> 20,
        maxUsedAfterGc >> 20,
        maxUsed >> 20,
        Runtime.getRuntime().maxMemory() >> 20);
    System.out.printf(
        Locale.ROOT, "gc                     %d collections, %d ms%n", gcCount, gcTime);
    System.out.printf(Locale.ROOT, "open file descriptors  %d%n", fds);
    System.out.printf(
        Locale.ROOT, "load average           %s at start, %s at end%n", load0, loadAverage());

    prober.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    for (Process p : servers) {
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroy();
      }
    }
    System.exit(0);
  }

  private static long percentile(AtomicLongArray h, long total, double q) {
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (int i = 0; i < h.length(); i++) {
      seen += h.get(i);
      if (seen >= rank) {
        return i;
      }
    }
    return MAX_MS;
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Heap in use right after each collection, from the JVM's GC notifications. */
  private static final class AfterGc implements NotificationListener {
    private final AtomicLong last = new AtomicLong();
    private final AtomicLong max = new AtomicLong();

    AfterGc() {
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof NotificationEmitter emitter) {
          emitter.addNotificationListener(this, null, null);
        }
      }
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
      if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
        return;
      }
      GarbageCollectionNotificationInfo info =
          GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
      long used = 0;
      for (MemoryUsage u : info.getGcInfo().getMemoryUsageAfterGc().values()) {
        used += u.getUsed();
      }
      // Non-heap pools (metaspace, code cache) are in the map too: keep the heap pools only.
      used -= nonHeapUsed(info.getGcInfo().getMemoryUsageAfterGc());
      last.set(used);
      max.accumulateAndGet(used, Math::max);
    }

    private static long nonHeapUsed(Map<String, MemoryUsage> pools) {
      long sum = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.NON_HEAP && pools.containsKey(pool.getName())) {
          sum += pools.get(pool.getName()).getUsed();
        }
      }
      return sum;
    }

    void reset() {
      max.set(0);
    }
  }

  private static long gcCount() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionCount)
        .sum();
  }

  private static long gcTime() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionTime)
        .sum();
  }

  /** The 1, 5 and 15 minute load averages: other work on the machine skews latency. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  private static long countFds() {
    String[] fds = new File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }

  private static Map<Long, Long> threadCpu(ThreadMXBean threads) {
    Map<Long, Long> cpu = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      cpu.put(id, threads.getThreadCpuTime(id));
    }
    return cpu;
  }

  private static List<String> topThreads(
      ThreadMXBean threads, Map<Long, Long> before, Map<Long, Long> after, long wall) {
    List<long[]> rows = new ArrayList<>();
    after.forEach(
        (id, t1) -> {
          long t0 = before.getOrDefault(id, 0L);
          if (t1 > 0 && t1 - t0 > 0) {
            rows.add(new long[] {id, t1 - t0});
          }
        });
    rows.sort((a, b) -> Long.compare(b[1], a[1]));
    List<String> out = new ArrayList<>();
    for (long[] r : rows.subList(0, Math.min(5, rows.size()))) {
      ThreadInfo info = threads.getThreadInfo(r[0]);
      String name = info == null ? "#" + r[0] : info.getThreadName();
      out.add(String.format(Locale.ROOT, "%-40s %5.1f %%", name, 100.0 * r[1] / wall));
    }
    return out;
  }
}
