package dev.replicapool.dataplane.proxy;

/**
 * Limits and timeouts of the traffic side.
 *
 * @param listenHost interface of every traffic listener
 * @param trafficPort the shared plain-HTTP port (Host routing); 0 picks one
 * @param tlsPort the shared TLS port (SNI + Host routing), opened while some pool has TLS; 0 picks
 *     one, -1 turns it off
 * @param instances server instances (event loops) per listener
 * @param maxInitialLineLength longer request lines get 414
 * @param maxHeaderSize larger header blocks get 431
 * @param maxBodyBytes larger request bodies get 413
 * @param upstreamConnectTimeoutMillis a member that does not accept within this is unreachable
 * @param upstreamIdleTimeoutMillis a member silent this long during a request times out (504)
 * @param upstreamKeepAliveSeconds idle connections to members are closed after this
 * @param maxConnectionsPerMember idle HTTP/1.1 connections kept per member by each event loop (each
 *     event loop has its own connections to the members)
 * @param clientIdleTimeoutSeconds idle client connections are closed after this; on HTTP/1.x also
 *     the longest a kept-alive connection may take, from the end of a response, to complete the
 *     next request's header (an absolute limit: trickling bytes does not extend it)
 * @param requestHeaderTimeoutMillis an HTTP/1.x connection that has not completed its first request
 *     header this long after it was handed to the proxy is closed (slowloris); 0 turns it off. With
 *     {@code h2c} on, Vert.x hands a plain-text connection over only once its first request header
 *     is complete, so there it bounds the requests after the first one
 * @param h2c whether the plain-text ports also accept HTTP/2 with prior knowledge
 * @param maxClientConnections client connections open at once, all traffic ports together; one
 *     beyond is closed as soon as Vert.x hands it over (counted as refused); 0 means no limit
 * @param drainMillis how long stopping (SIGTERM, a removed dedicated port) waits for in-flight
 *     requests
 */
public record ProxySettings(
    String listenHost,
    int trafficPort,
    int tlsPort,
    int instances,
    int maxInitialLineLength,
    int maxHeaderSize,
    long maxBodyBytes,
    int upstreamConnectTimeoutMillis,
    long upstreamIdleTimeoutMillis,
    int upstreamKeepAliveSeconds,
    int maxConnectionsPerMember,
    int clientIdleTimeoutSeconds,
    long requestHeaderTimeoutMillis,
    boolean h2c,
    int maxClientConnections,
    long drainMillis) {

  public static ProxySettings defaults() {
    return new ProxySettings(
        "0.0.0.0",
        8080,
        8443,
        Math.max(1, Runtime.getRuntime().availableProcessors()),
        4096,
        8192,
        10L * 1024 * 1024,
        1000,
        30_000,
        15,
        128,
        120,
        10_000,
        true,
        10_000,
        10_000);
  }

  public ProxySettings withListen(String host, int trafficPort, int tlsPort) {
    Editor e = edit();
    e.listenHost = host;
    e.trafficPort = trafficPort;
    e.tlsPort = tlsPort;
    return e.build();
  }

  public ProxySettings withLimits(int maxInitialLineLength, int maxHeaderSize, long maxBodyBytes) {
    Editor e = edit();
    e.maxInitialLineLength = maxInitialLineLength;
    e.maxHeaderSize = maxHeaderSize;
    e.maxBodyBytes = maxBodyBytes;
    return e.build();
  }

  public ProxySettings withUpstreamTimeouts(int connectMillis, long idleMillis) {
    Editor e = edit();
    e.upstreamConnectTimeoutMillis = connectMillis;
    e.upstreamIdleTimeoutMillis = idleMillis;
    return e.build();
  }

  public ProxySettings withInstances(int instances) {
    Editor e = edit();
    e.instances = instances;
    return e.build();
  }

  public ProxySettings withDrainMillis(long drainMillis) {
    Editor e = edit();
    e.drainMillis = drainMillis;
    return e.build();
  }

  /**
   * @param idleSeconds idle client connections are closed after this (and, on HTTP/1.x, a
   *     kept-alive connection must complete its next request header within it)
   * @param headerMillis time to complete the first request header of a connection; 0 turns it off
   */
  public ProxySettings withClientTimeouts(int idleSeconds, long headerMillis) {
    Editor e = edit();
    e.clientIdleTimeoutSeconds = idleSeconds;
    e.requestHeaderTimeoutMillis = headerMillis;
    return e.build();
  }

  /** Whether plain-text ports also speak HTTP/2 with prior knowledge (h2c). */
  public ProxySettings withH2c(boolean h2c) {
    Editor e = edit();
    e.h2c = h2c;
    return e.build();
  }

  /** At most this many client connections at once, all traffic ports together; 0: no limit. */
  public ProxySettings withMaxClientConnections(int max) {
    Editor e = edit();
    e.maxClientConnections = max;
    return e.build();
  }

  private Editor edit() {
    return new Editor(this);
  }

  /** A mutable copy, so that each {@code with} method names only what it changes. */
  private static final class Editor {
    String listenHost;
    int trafficPort;
    int tlsPort;
    int instances;
    int maxInitialLineLength;
    int maxHeaderSize;
    long maxBodyBytes;
    int upstreamConnectTimeoutMillis;
    long upstreamIdleTimeoutMillis;
    int upstreamKeepAliveSeconds;
    int maxConnectionsPerMember;
    int clientIdleTimeoutSeconds;
    long requestHeaderTimeoutMillis;
    boolean h2c;
    int maxClientConnections;
    long drainMillis;

    Editor(ProxySettings s) {
      listenHost = s.listenHost;
      trafficPort = s.trafficPort;
      tlsPort = s.tlsPort;
      instances = s.instances;
      maxInitialLineLength = s.maxInitialLineLength;
      maxHeaderSize = s.maxHeaderSize;
      maxBodyBytes = s.maxBodyBytes;
      upstreamConnectTimeoutMillis = s.upstreamConnectTimeoutMillis;
      upstreamIdleTimeoutMillis = s.upstreamIdleTimeoutMillis;
      upstreamKeepAliveSeconds = s.upstreamKeepAliveSeconds;
      maxConnectionsPerMember = s.maxConnectionsPerMember;
      clientIdleTimeoutSeconds = s.clientIdleTimeoutSeconds;
      requestHeaderTimeoutMillis = s.requestHeaderTimeoutMillis;
      h2c = s.h2c;
      maxClientConnections = s.maxClientConnections;
      drainMillis = s.drainMillis;
    }

    ProxySettings build() {
      return new ProxySettings(
          listenHost,
          trafficPort,
          tlsPort,
          instances,
          maxInitialLineLength,
          maxHeaderSize,
          maxBodyBytes,
          upstreamConnectTimeoutMillis,
          upstreamIdleTimeoutMillis,
          upstreamKeepAliveSeconds,
          maxConnectionsPerMember,
          clientIdleTimeoutSeconds,
          requestHeaderTimeoutMillis,
          h2c,
          maxClientConnections,
          drainMillis);
    }
  }
}
