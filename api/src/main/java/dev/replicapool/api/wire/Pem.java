package dev.replicapool.api.wire;

/** What the command lines check of a PEM file before a port or a stream is opened with it. */
public final class Pem {
  private Pem() {}

  /**
   * Whether the text holds a PEM block of this kind: {@code "CERTIFICATE"}, or {@code "PRIVATE
   * KEY"} (which also matches {@code RSA PRIVATE KEY} and {@code EC PRIVATE KEY} blocks).
   */
  public static boolean holds(String text, String kind) {
    return text.contains("-----BEGIN ") && text.contains(kind + "-----");
  }
}
