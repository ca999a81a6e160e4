package dev.replicapool.registrar;

/** A command line that cannot be used; the message says what is wrong with it in plain words. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message);
  }
}
