package dev.replicapool.dataplane.proxy;

import io.soabase.recordbuilder.core.RecordBuilder;

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
 * @param warmUpMillis how long the data plane sends requests through a copy of itself on loopback
 *     after it starts, before it reports ready, so that its request paths are compiled (the JIT)
 *     before traffic comes; 0 turns it off
 */
@RecordBuilder
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
    long drainMillis,
    long warmUpMillis) {

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
        10_000,
        0);
  }

  public ProxySettings withListen(String host, int trafficPort, int tlsPort) {
    return edit().listenHost(host).trafficPort(trafficPort).tlsPort(tlsPort).build();
  }

  public ProxySettings withLimits(int maxInitialLineLength, int maxHeaderSize, long maxBodyBytes) {
    return edit()
        .maxInitialLineLength(maxInitialLineLength)
        .maxHeaderSize(maxHeaderSize)
        .maxBodyBytes(maxBodyBytes)
        .build();
  }

  public ProxySettings withUpstreamTimeouts(int connectMillis, long idleMillis) {
    return edit()
        .upstreamConnectTimeoutMillis(connectMillis)
        .upstreamIdleTimeoutMillis(idleMillis)
        .build();
  }

  public ProxySettings withInstances(int instances) {
    return edit().instances(instances).build();
  }

  public ProxySettings withDrainMillis(long drainMillis) {
    return edit().drainMillis(drainMillis).build();
  }

  /** Warms the request paths up for this long before reporting ready; 0: not at all. */
  public ProxySettings withWarmUpMillis(long warmUpMillis) {
    return edit().warmUpMillis(warmUpMillis).build();
  }

  /**
   * @param idleSeconds idle client connections are closed after this (and, on HTTP/1.x, a
   *     kept-alive connection must complete its next request header within it)
   * @param headerMillis time to complete the first request header of a connection; 0 turns it off
   */
  public ProxySettings withClientTimeouts(int idleSeconds, long headerMillis) {
    return edit()
        .clientIdleTimeoutSeconds(idleSeconds)
        .requestHeaderTimeoutMillis(headerMillis)
        .build();
  }

  /** Whether plain-text ports also speak HTTP/2 with prior knowledge (h2c). */
  public ProxySettings withH2c(boolean h2c) {
    return edit().h2c(h2c).build();
  }

  /** At most this many client connections at once, all traffic ports together; 0: no limit. */
  public ProxySettings withMaxClientConnections(int max) {
    return edit().maxClientConnections(max).build();
  }

  private ProxySettingsBuilder edit() {
    return ProxySettingsBuilder.builder(this);
  }
}
