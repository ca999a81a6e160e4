package dev.replicapool.controlplane;

import dev.replicapool.api.wire.StreamMessage;
import java.util.List;

/**
 * A data plane's {@code ack} and {@code nack}, alone or several in one {@code answers} frame:
 * checks their form, then has the {@link StreamHub} record them.
 */
final class AnswerHandler {
  private final StreamHub hub;

  AnswerHandler(StreamHub hub) {
    this.hub = hub;
  }

  /** An {@code answers} frame: every item must be an ack or a nack, else none counts. */
  void handleAll(DataPlaneConnection c, StreamMessage m) {
    List<StreamMessage> list = m.answers();
    if (list == null || list.isEmpty()) {
      c.close((short) 1007, "answers needs a list of ack and nack");
      return;
    }
    for (StreamMessage a : list) {
      if (a == null
          || (a.type() != StreamMessage.Type.ack && a.type() != StreamMessage.Type.nack)) {
        c.close((short) 1008, "answers may only hold ack and nack");
        return;
      }
    }
    for (StreamMessage a : list) {
      if (c.closed) {
        return;
      }
      handle(c, a);
    }
  }

  /** One {@code ack} or {@code nack}. */
  void handle(DataPlaneConnection c, StreamMessage m) {
    if (c.node == null) {
      c.close((short) 1008, "hello first");
      return;
    }
    if (m.pool() == null || m.version() == null) {
      c.close((short) 1007, m.type() + " needs pool and version");
      return;
    }
    hub.answer(c, m);
  }
}
