package dev.replicapool.controlplane;

/** Text a data plane sent (a NACK's reason, a certificate's subject), made fit for a log line. */
final class UntrustedText {
  private static final int MAX_CHARS = 512;

  private UntrustedText() {}

  /** Control characters as spaces, stripped, at most 512 characters; never null or blank. */
  static String sanitize(String text) {
    if (text == null || text.isBlank()) {
      return "no reason given";
    }
    String s = text.replaceAll("[\\p{Cntrl}]", " ").strip();
    return s.length() > MAX_CHARS ? s.substring(0, MAX_CHARS) + "..." : s;
  }
}
