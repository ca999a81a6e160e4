package dev.replicapool.registrar;

/** Logging defaults of the command-line tools; call before any logger exists. */
public final class CliLogging {
  private CliLogging() {}

  /**
   * Our logback configuration unless the user picks one, and logback's own status only on error (to
   * stderr): stdout carries nothing but a tool's ready line.
   */
  public static void useDefaults() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "replicapool-cli-logback.xml");
    }
    if (System.getProperty("logback.statusListenerClass") == null) {
      System.setProperty(
          "logback.statusListenerClass", "ch.qos.logback.core.status.OnErrorConsoleStatusListener");
    }
  }
}
