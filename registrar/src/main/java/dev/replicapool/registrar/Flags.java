package dev.replicapool.registrar;

import dev.replicapool.cli.CommandLineException;
import dev.replicapool.cli.FlagParser;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The registrar's and the sample replica's flags, read by {@link FlagParser} (a flag given twice is
 * refused: these command lines are typed, not assembled from a Deployment and an override), with
 * the typed readers both use. Every mistake (unknown flag, missing or repeated value, bad number)
 * is a {@link UsageException} that names the flag.
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
    try {
      return new Flags(FlagParser.of(valued, switches).parse(args).values());
    } catch (CommandLineException e) {
      throw new UsageException(e.getMessage());
    }
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
