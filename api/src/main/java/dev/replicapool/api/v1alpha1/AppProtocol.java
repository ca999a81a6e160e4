package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a pool's members speak, named as Kubernetes Services and Gateway API name it (appProtocol).
 * The JSON value is {@link #value()}.
 */
public enum AppProtocol {
  /** HTTP/1.1 in clear text. */
  @JsonProperty("http")
  HTTP("http", false),
  /** HTTP/2 with prior knowledge in clear text: what gRPC servers speak without TLS. */
  @JsonProperty("kubernetes.io/h2c")
  H2C("kubernetes.io/h2c", false),
  /** TLS to the members, HTTP/2 or HTTP/1.1 chosen by ALPN. */
  @JsonProperty("https")
  HTTPS("https", true),
  /** WebSocket over HTTP/1.1 in clear text. */
  @JsonProperty("kubernetes.io/ws")
  WS("kubernetes.io/ws", false),
  /** WebSocket over TLS. */
  @JsonProperty("kubernetes.io/wss")
  WSS("kubernetes.io/wss", true);

  private final String value;
  private final boolean tls;

  AppProtocol(String value, boolean tls) {
    this.value = value;
    this.tls = tls;
  }

  /** The name in the spec and on the wire, e.g. {@code kubernetes.io/h2c}. */
  public String value() {
    return value;
  }

  /** Whether connections to the members use TLS. */
  public boolean tls() {
    return tls;
  }

  /** The protocol named {@code value} on the wire; null and unknown values are {@link #HTTP}. */
  public static AppProtocol fromValue(String value) {
    for (AppProtocol p : values()) {
      if (p.value.equals(value)) {
        return p;
      }
    }
    return HTTP;
  }
}
