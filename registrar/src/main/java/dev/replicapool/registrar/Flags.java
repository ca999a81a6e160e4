package dev.replicapool.registrar;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A tiny parser for {@code --flag value} and {@code --flag=value} command lines, shared by the
 * registrar and the sample replica. It knows which flags take a value and which are switches, and
 * turns every mistake (unknown flag, missing or repeated value, bad number) into a {@link
 * UsageException} that names the flag.
 */
public final class Flags {
  private final Map<String, String> values;

  private Flags(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Parses {@code args}. {@code valued} lists flags that take a value, {@code switches} flags that
   * do not (both without the leading dashes).
   */
  public static Flags parse(String[] args, Set<String> valued, Set<String> switches)
      throws UsageException {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException(
            "unexpected argument '" + arg + "' (flags look like --name value)");
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (switches.contains(name)) {
        if (value != null) {
          throw new UsageException("--" + name + " takes no value");
        }
        value = "true";
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
            throw new UsageException("--" + name + " needs a value");
          }
          value = args[++i];
        }
        if (value.isBlank()) {
          throw new UsageException("--" + name + " needs a non-empty value");
        }
      } else {
        throw new UsageException("unknown flag --" + name);
      }
      if (values.putIfAbsent(name, value) != null) {
        throw new UsageException("--" + name + " given more than once");
      }
    }
    return new Flags(values);
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  public String required(String name) throws UsageException {
    String value = values.get(name);
    if (value == null) {
      throw new UsageException("--" + name + " is required");
    }
    return value;
  }

  public String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  /** A whole number within [min, max], or the fallback when the flag is absent. */
  public long longValue(String name, long fallback, long min, long max) throws UsageException {
    String value = values.get(name);
    if (value == null) {
      return fallback;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be a whole number, got '" + value + "'");
    }
    if (parsed < min || parsed > max) {
      throw new UsageException(
          "--" + name + " must be between " + min + " and " + max + ", got " + parsed);
    }
    return parsed;
  }

  /** An absolute http or https URL, if the flag is present. */
  public Optional<URI> httpUrl(String name) throws UsageException {
    String value = values.get(name);
    if (value == null) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(value);
      String scheme = uri.getScheme();
      if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
          || uri.getHost() == null) {
        throw new UsageException(
            "--" + name + " must be an http:// or https:// URL with a host, got '" + value + "'");
      }
      return Optional.of(uri);
    } catch (java.net.URISyntaxException e) {
      throw new UsageException(
          "--" + name + " must be an http:// or https:// URL with a host, got '" + value + "'");
    }
  }
}
