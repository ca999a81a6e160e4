package dev.replicapool.controlplane.load;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a member's ORCA load report from an answer's headers, in the forms Envoy reads: {@code
 * endpoint-load-metrics: TEXT cpu_utilization=0.3, named_metrics.queue=7}, {@code
 * endpoint-load-metrics: JSON {"cpu_utilization": 0.3}}, {@code endpoint-load-metrics: BIN
 * <base64>} and {@code endpoint-load-metrics-bin: <base64>} (a serialized {@code OrcaLoadReport},
 * read by {@link OrcaProto}). A value that is none of these, or holds a negative or non-finite
 * figure, gives null: the member is balanced as one that does not report.
 */
public final class LoadReports {
  public static final String HEADER = "endpoint-load-metrics";
  public static final String HEADER_BIN = "endpoint-load-metrics-bin";

  /** Beyond any real report; bounds the work a hostile member can cause. */
  static final int MAX_CHARS = 8192;

  private static final int MAX_NAMED = 64;

  private LoadReports() {}

  /** The report in an {@code endpoint-load-metrics} value, or null. */
  public static LoadReport parse(String value) {
    if (value == null || value.length() > MAX_CHARS) {
      return null;
    }
    String v = value.strip();
    if (v.startsWith("TEXT ")) {
      return text(v.substring(5));
    } else if (v.startsWith("JSON ")) {
      return json(v.substring(5));
    } else if (v.startsWith("BIN ")) {
      return bin(v.substring(4));
    }
    return null;
  }

  /** The report in an {@code endpoint-load-metrics-bin} value (base64 protobuf), or null. */
  public static LoadReport bin(String base64) {
    if (base64 == null || base64.length() > MAX_CHARS) {
      return null;
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64.strip());
    } catch (IllegalArgumentException e) {
      return null;
    }
    Fields f = new Fields();
    return OrcaProto.read(bytes, f) ? f.report() : null;
  }

  private static LoadReport text(String body) {
    Fields f = new Fields();
    for (String pair : body.split(",", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        return null;
      }
      double d;
      try {
        d = Double.parseDouble(pair.substring(eq + 1).strip());
      } catch (NumberFormatException e) {
        return null;
      }
      if (!f.set(pair.substring(0, eq).strip(), d)) {
        return null;
      }
    }
    return f.report();
  }

  private static LoadReport json(String body) {
    JsonObject o;
    try {
      o = new JsonObject(body);
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
    Fields f = new Fields();
    for (Map.Entry<String, Object> e : o) {
      if (e.getKey().equals("named_metrics") && e.getValue() instanceof JsonObject named) {
        for (Map.Entry<String, Object> n : named) {
          if (!(n.getValue() instanceof Number num) || !f.named(n.getKey(), num.doubleValue())) {
            return null;
          }
        }
      } else if (!(e.getValue() instanceof Number num) || !f.set(e.getKey(), num.doubleValue())) {
        return null;
      }
    }
    return f.report();
  }

  /** The fields read so far; {@link #set} refuses what a report cannot hold. */
  static final class Fields {
    double application;
    double cpu;
    double mem;
    double rps;
    double eps;
    final Map<String, Double> named = new HashMap<>();

    /** Sets field {@code name} (TEXT and JSON names); false for an unknown name or a bad value. */
    boolean set(String name, double value) {
      if (!valid(value)) {
        return false;
      }
      value += 0.0; // -0.0 (which passes >= 0) becomes 0.0: a fuzzer found it
      switch (name) {
        case "application_utilization" -> application = value;
        case "cpu_utilization" -> cpu = value;
        case "mem_utilization" -> mem = value;
        case "rps_fractional" -> rps = value;
        case "eps" -> eps = value;
        default -> {
          return name.startsWith("named_metrics.") && named(name.substring(14), value);
        }
      }
      return true;
    }

    boolean named(String name, double value) {
      if (name.isEmpty() || !Double.isFinite(value) || named.size() >= MAX_NAMED) {
        return false;
      }
      named.put(name, value);
      return true;
    }

    static boolean valid(double value) {
      return Double.isFinite(value) && value >= 0;
    }

    LoadReport report() {
      return new LoadReport(application, cpu, mem, rps, eps, named);
    }
  }
}
