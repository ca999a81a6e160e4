package dev.replicapool.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/**
 * The heap another JVM holds after a full GC, read with jcmd ({@code GC.run}, then the first {@code
 * used} line of {@code GC.heap_info}). ScaleBenchmark measures its data-plane child with it.
 */
final class HeapAfterGc {
  private HeapAfterGc() {}

  /** The heap line as jcmd prints it, stripped; empty when jcmd printed none. */
  static String of(long pid) throws Exception {
    run("jcmd", String.valueOf(pid), "GC.run");
    StringBuilder used = new StringBuilder();
    for (String line : run("jcmd", String.valueOf(pid), "GC.heap_info")) {
      if (line.contains("used") && used.length() == 0) {
        used.append(line.strip());
      }
    }
    return used.toString();
  }

  private static List<String> run(String... cmd) throws Exception {
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
