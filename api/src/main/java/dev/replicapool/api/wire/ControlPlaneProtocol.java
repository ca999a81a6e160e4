package dev.replicapool.api.wire;

/** Constants both ends of the control-plane stream agree on. */
public final class ControlPlaneProtocol {
  /** WebSocket path on the operator's control-plane port. */
  public static final String STREAM_PATH = "/v1/stream";

  /** Data planes authenticate with {@code Authorization: Bearer <token>}. */
  public static final String AUTHORIZATION = "Authorization";

  /** Key of the shared token in the control-plane Secret. */
  public static final String TOKEN_KEY = "token";

  /** Default control-plane port of the operator. */
  public static final int DEFAULT_PORT = 18000;

  /** Largest frame either side accepts (a 10,000-member snapshot is about 1 MiB). */
  public static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;

  private ControlPlaneProtocol() {}
}
