package dev.replicapool.local;

import java.util.HashMap;
import java.util.Map;

/** --name value and --name=value flags, checked against the usage text. */
final class Flags {
  private Flags() {}

  static Map<String, String> parse(String[] args, String usage) {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        System.out.print(usage);
        System.exit(0);
      }
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + a);
      }
      String name = a.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
      if (!usage.contains("--" + name + " ")) {
        throw new IllegalArgumentException("unknown flag --" + name);
      }
      flags.put(name, value);
    }
    return flags;
  }
}
