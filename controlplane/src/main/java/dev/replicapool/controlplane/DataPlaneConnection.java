package dev.replicapool.controlplane;

import io.vertx.core.http.ServerWebSocket;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data plane's stream as the server sees it: who it proved to be (token, client certificate),
 * who its hello said it is, and which pools it was sent. Fields past the constructor are guarded by
 * the server's lock.
 */
final class DataPlaneConnection {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);
  private static final int MAX_REASON_CHARS = 120;

  final ServerWebSocket ws;
  final String remote;

  /** The subject of the client certificate under mutual TLS, else null. */
  final String clientSubject;

  /** The group the client certificate names, else null. */
  final String certificateGroup;

  /** Why the client certificate cannot name a group (several, invalid), else null. */
  final String certificateProblem;

  /** What the bearer token allows, null for no known token. */
  final DataPlaneCredentials.Grant grant;

  /** Set by the hello that admitted it. */
  String node;

  String group;

  /** Pools whose snapshot this connection was sent and not told to remove since. */
  final Set<String> holding = new HashSet<>();

  /** The Host names and port of each pool this data plane ACKed, as of the version it ACKed. */
  final Map<String, RouteClaims> claims = new HashMap<>();

  /** When the pools this data plane rejected are sent again. */
  final NackRetry retry = new NackRetry();

  boolean closed;

  /** When its hello was admitted (epoch millis). */
  long admittedMillis;

  /** Its last ACK or NACK, null before the first: what the admin port shows. */
  ConnectedDataPlane.Answer lastAnswer;

  DataPlaneConnection(
      ServerWebSocket ws,
      String clientSubject,
      String certificateGroup,
      String certificateProblem,
      DataPlaneCredentials.Grant grant) {
    this.ws = ws;
    this.remote = String.valueOf(ws.remoteAddress());
    this.clientSubject = clientSubject;
    this.certificateGroup = certificateGroup;
    this.certificateProblem = certificateProblem;
    this.grant = grant;
  }

  /** Sends the pool's latest frame and notes whether the data plane now holds the pool. */
  void send(SnapshotStore.Entry e, String pool) {
    ws.writeTextMessage(e.frame());
    if (e.removed()) {
      holding.remove(pool);
    } else {
      holding.add(pool);
    }
  }

  void write(String frame) {
    ws.writeTextMessage(frame);
  }

  /** Closes the stream with a WebSocket close code and a reason the data plane logs. */
  void close(short code, String reason) {
    log.warn("closing control-plane connection {} ({}): {}", remote, node, reason);
    String r = reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) : reason;
    ws.close(code, r);
  }
}
