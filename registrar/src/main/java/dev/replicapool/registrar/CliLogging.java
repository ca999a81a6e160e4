package dev.replicapool.registrar;

/** Logging defaults of the command-line tools; call before any logger exists. */
public final class CliLogging {
  private CliLogging() {}

  /**
   * Our logback configuration unless the user picks one. No status listener is set: logback then
   * prints its own status (to stdout) only when its configuration had a warning or an error. (A
   * console status listener would print every status line, about 30 at each start.)
   */
  public static void useDefaults() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "replicapool-cli-logback.xml");
    }
  }
}
