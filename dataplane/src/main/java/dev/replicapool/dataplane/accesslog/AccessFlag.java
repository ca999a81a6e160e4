package dev.replicapool.dataplane.accesslog;

/**
 * Why a request did not get a member's complete answer, as precise as Envoy's response flags (the
 * same letters where Envoy has the case; QT and LP are ours). A line may carry several (UF,URX).
 */
public enum AccessFlag {
  /** No route: no pool serves this host and port. */
  NR,
  /** No routable member in the pool (all unhealthy, drained, or none registered). */
  UH,
  /** Overflow: every member at its in-flight limit and no room in the pool's queue. */
  UO,
  /** Queue timeout: waited in the pool's queue for a free member in vain. */
  QT,
  /** The last try could not connect to its member. */
  UF,
  /** The last try's member closed or reset the connection or stream before a complete answer. */
  UC,
  /** The last try's member sent an answer that could not be read. */
  UPE,
  /** The last try had no answer within the per-try (or idle) timeout. */
  UT,
  /** The request's own deadline passed (the pool's request timeout, or the call's grpc-timeout). */
  DT,
  /** More than one try went out and the last one failed too (retries or hedges spent). */
  URX,
  /** Loop: the request had passed this data plane already (its Via names it). */
  LP,
  /** The client went away or reset its stream before the answer was complete. */
  DC,
  /**
   * The client took none of the answer for the pool's idle timeout: the answer was cut (Envoy's
   * stream idle timeout); not the member's doing.
   */
  SI;

  private final int bit = 1 << ordinal();

  int bit() {
    return bit;
  }

  /** The flags of {@code bits}, comma-separated in declaration order; "-" for none. */
  static String join(int bits) {
    if (bits == 0) {
      return "-";
    }
    StringBuilder b = new StringBuilder(8);
    for (AccessFlag f : values()) {
      if ((bits & f.bit) != 0) {
        if (b.length() > 0) {
          b.append(',');
        }
        b.append(f.name());
      }
    }
    return b.toString();
  }

  /** The flag a failed try's outcome (as the metrics name it) stands for; null for none. */
  public static AccessFlag ofTryOutcome(String outcome) {
    return switch (outcome) {
      case "connect_failure" -> UF;
      case "reset", "unprocessed" -> UC;
      case "timeout" -> UT;
      case "invalid" -> UPE;
      default -> null;
    };
  }
}
