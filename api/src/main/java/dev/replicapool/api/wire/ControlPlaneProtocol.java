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

  /** The data-plane group of a data plane that names none, and of a pool that names none. */
  public static final String DEFAULT_GROUP = "default";

  /** What a group name may be: a DNS label (RFC 1123), like a namespace name. */
  public static final String GROUP_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** The longest group name. */
  public static final int MAX_GROUP_CHARS = 63;

  /**
   * A client certificate carries its data plane's group as a URI subject alternative name with this
   * prefix, e.g. {@code urn:replicapool:group:edge}.
   */
  public static final String GROUP_URI_PREFIX = "urn:replicapool:group:";

  /** True when {@code name} is a valid group name. */
  public static boolean validGroup(String name) {
    return name != null && name.length() <= MAX_GROUP_CHARS && name.matches(GROUP_PATTERN);
  }

  private ControlPlaneProtocol() {}
}
