package dev.replicapool.registrar;

/**
 * The three calls a registrar makes on its Lease, each one request. Two ways to make them: {@link
 * JdkLeaseApi} (the JDK's HTTP client, what the command line uses when it can read the kube config
 * itself: it starts in a fraction of fabric8's time) and {@link Fabric8LeaseApi} (every kube config
 * fabric8 reads, and the client a program that embeds the registrar already has).
 */
interface LeaseApi {
  /** POSTs the Lease {@code json} (a whole object) to its namespace. */
  void create(String json);

  /** Sends {@code json} as a JSON merge patch of the Lease. */
  void mergePatch(String json);

  /** Deletes the Lease. */
  void delete();

  /** What the API server answered when it did not take a call: its HTTP code and message. */
  final class RefusedException extends RuntimeException {
    private final int code;

    RefusedException(int code, String message) {
      super("HTTP " + code + ": " + message);
      this.code = code;
    }

    int code() {
      return code;
    }
  }
}
