package dev.replicapool.cli;

import java.util.Map;

/**
 * What {@link FlagParser} read from a command line: each given flag's value by its name without
 * dashes ({@code "true"} for a switch), or, when {@code help} is set, only the request for the
 * usage text. The mains turn it into their own options.
 */
public record ParsedFlags(Map<String, String> values, boolean help) {
  static final ParsedFlags HELP = new ParsedFlags(Map.of(), true);

  public ParsedFlags {
    values = Map.copyOf(values);
  }
}
