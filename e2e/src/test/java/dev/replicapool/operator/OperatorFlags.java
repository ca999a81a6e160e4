package dev.replicapool.operator;

import java.util.Map;

/** Test access to the operator's own flag parser, to check the manifests' args against it. */
public final class OperatorFlags {
  private OperatorFlags() {}

  /**
   * The flags as {@code OperatorMain} reads them (environment REPLICAPOOL_* first, then args);
   * throws IllegalArgumentException on an unknown flag or a missing value.
   */
  public static Map<String, String> parse(String... args) {
    return OperatorMain.parse(args, System.getenv());
  }

  /**
   * The configuration {@code OperatorMain} would run with: reads the files the flags name; throws
   * IllegalArgumentException (with the message the operator prints) when the flags cannot work.
   */
  public static OperatorConfig config(String... args) {
    return OperatorMain.config(OperatorMain.parse(args, Map.of()));
  }
}
