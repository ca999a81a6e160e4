package dev.replicapool.registrar;

import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusListener;

/** Logging defaults of the command-line tools; call before any logger exists. */
public final class CliLogging {
  private CliLogging() {}

  /**
   * Our logback configuration unless the user picks one, and logback's own status only when it
   * warns or fails ({@link WarningsToStderr}): stdout carries nothing but a tool's ready line, and
   * stderr no start-up chatter. Without a listener logback prints its status to stdout when a
   * configuration warns; logback's console listeners print every status line (about 30 a start).
   */
  public static void useDefaults() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "replicapool-cli-logback.xml");
    }
    if (System.getProperty("logback.statusListenerClass") == null) {
      System.setProperty("logback.statusListenerClass", WarningsToStderr.class.getName());
    }
  }

  /** Prints logback's own warnings and errors to stderr, and nothing else. */
  public static final class WarningsToStderr implements StatusListener {
    @Override
    public void addStatusEvent(Status status) {
      if (status.getEffectiveLevel() >= Status.WARN) {
        System.err.println(status);
      }
    }

    @Override
    public boolean isResetResistant() {
      return true; // a reconfiguration keeps it
    }
  }
}
