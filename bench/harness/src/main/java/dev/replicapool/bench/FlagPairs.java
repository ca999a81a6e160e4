package dev.replicapool.bench;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The command line of every benchmark driver here: {@code --key value} pairs, the last of a
 * repeated key winning (the bench scripts put defaults first and let a run override them). The
 * drivers read it into their own options records.
 */
final class FlagPairs {
  private FlagPairs() {}

  static Map<String, String> parse(String[] args) throws IOException {
    Map<String, String> m = new TreeMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IOException("expected --flag, got " + args[i]);
      }
      m.put(args[i].substring(2), args[i + 1]);
    }
    return m;
  }
}
