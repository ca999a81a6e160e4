package dev.replicapool.cli;

/**
 * A command line that {@link FlagParser} cannot read; the message names the flag and says what is
 * wrong with it. Each main shows it in its own way, with its usage text.
 */
public final class CommandLineException extends Exception {
  public CommandLineException(String message) {
    super(message);
  }
}
