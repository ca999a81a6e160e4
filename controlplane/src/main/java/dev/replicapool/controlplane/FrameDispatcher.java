package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.StreamMessage;
import io.vertx.core.http.ServerWebSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires an accepted stream and hands each of its frames to the handler of its type. Data planes may
 * only send {@code hello}, {@code ack}, {@code nack} and {@code answers}; anything else, malformed
 * JSON or a binary frame closes that connection (never the server), and so does a handler that
 * fails.
 */
final class FrameDispatcher {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);

  private final StreamHub hub;
  private final ServerSecurity security;
  private final HelloHandler hello;
  private final AnswerHandler answers;

  FrameDispatcher(StreamHub hub, ServerSecurity security) {
    this.hub = hub;
    this.security = security;
    this.hello = new HelloHandler(hub, security);
    this.answers = new AnswerHandler(hub);
  }

  /** A WebSocket that passed the handshake. */
  void connected(ServerWebSocket ws) {
    DataPlaneConnection c = security.identify(ws);
    ws.textMessageHandler(text -> onText(c, text));
    ws.binaryMessageHandler(b -> c.close((short) 1003, "binary frames are not accepted"));
    ws.exceptionHandler(t -> streamError(c, t));
    ws.closeHandler(v -> hub.disconnected(c));
  }

  /**
   * Vert.x reports a message over {@code MAX_FRAME_BYTES} here and drops it, leaving the connection
   * open: it is closed with 1009 (RFC 6455 7.4.1), saying why, since what the data plane meant is
   * lost. Other errors (a reset, a broken frame) end the connection by themselves.
   */
  private static void streamError(DataPlaneConnection c, Throwable t) {
    String m = String.valueOf(t.getMessage());
    if (t instanceof IllegalStateException && m.contains("max message size")) {
      c.close(
          (short) 1009, "a message over " + ControlPlaneProtocol.MAX_FRAME_BYTES + " bytes: " + m);
    } else {
      log.debug("control-plane stream {}: {}", c.remote, t.toString());
    }
  }

  private void onText(DataPlaneConnection c, String text) {
    StreamMessage m;
    try {
      m = WireCodec.decode(text);
    } catch (WireCodec.MalformedFrameException e) {
      c.close((short) 1007, e.getMessage());
      return;
    }
    try {
      switch (m.type()) {
        case hello -> hello.handle(c, m);
        case ack, nack -> answers.handle(c, m);
        case answers -> answers.handleAll(c, m);
        default -> c.close((short) 1008, "data planes may only send hello, ack, nack and answers");
      }
    } catch (RuntimeException e) {
      log.warn("control-plane frame from {} failed: {}", c.remote, e.toString());
      c.close((short) 1011, "internal error");
    }
  }
}
