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
 * @param maxConnectionsPerMember HTTP/1.1 connections kept per member
 * @param clientIdleTimeoutSeconds idle client connections are closed after this
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
        10_000);
  }

  public ProxySettings withListen(String host, int trafficPort, int tlsPort) {
    return new ProxySettings(
        host,
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
        drainMillis);
  }

  public ProxySettings withLimits(int maxInitialLineLength, int maxHeaderSize, long maxBodyBytes) {
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
        drainMillis);
  }

  public ProxySettings withUpstreamTimeouts(int connectMillis, long idleMillis) {
    return new ProxySettings(
        listenHost,
        trafficPort,
        tlsPort,
        instances,
        maxInitialLineLength,
        maxHeaderSize,
        maxBodyBytes,
        connectMillis,
        idleMillis,
        upstreamKeepAliveSeconds,
        maxConnectionsPerMember,
        clientIdleTimeoutSeconds,
        drainMillis);
  }

  public ProxySettings withInstances(int instances) {
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
        drainMillis);
  }

  public ProxySettings withDrainMillis(long drainMillis) {
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
        drainMillis);
  }
}
