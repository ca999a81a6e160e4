package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.StreamMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data plane's {@code hello}: checks its node name and the group it may serve, then has the
 * {@link StreamHub} admit it.
 *
 * <p>The group is the one its client certificate names, else the one its hello names, else {@link
 * ControlPlaneProtocol#DEFAULT_GROUP}; a hello for a group its token or certificate may not serve
 * closes the connection.
 */
final class HelloHandler {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);
  private static final int MAX_NODE_CHARS = 253;

  private final StreamHub hub;
  private final ServerSecurity security;

  HelloHandler(StreamHub hub, ServerSecurity security) {
    this.hub = hub;
    this.security = security;
  }

  void handle(DataPlaneConnection c, StreamMessage hello) {
    String node = hello.node();
    if (node == null || node.isBlank() || node.length() > MAX_NODE_CHARS) {
      c.close((short) 1008, "hello needs a node name");
      return;
    }
    String group = groupOf(c, hello.group());
    if (group == null) {
      return;
    }
    StreamHub.Admission admission = hub.admit(c, node.strip(), group);
    if (admission == null) {
      return;
    }
    for (DataPlaneConnection old : admission.replaced()) {
      log.warn(
          "data plane {} connected again from {}: closing its older stream from {}",
          c.node,
          c.remote,
          old.remote);
      old.ws.close((short) 1008, "replaced by a newer stream of the same node");
    }
    if (c.clientSubject != null) {
      log.info(
          "data plane {} of group {} connected from {} with client certificate {}",
          c.node,
          c.group,
          c.remote,
          c.clientSubject);
    } else {
      log.info("data plane {} of group {} connected from {}", c.node, c.group, c.remote);
    }
    hub.announce(admission);
  }

  /**
   * The group the connection serves: its certificate's, else the one its hello names, else the
   * default one; null (and the connection closed) when its token or certificate may not serve it.
   */
  private String groupOf(DataPlaneConnection c, String declared) {
    if (declared != null && !ControlPlaneProtocol.validGroup(declared)) {
      c.close((short) 1008, "hello names an invalid data-plane group");
      return null;
    }
    if (c.certificateProblem != null) {
      c.close((short) 1008, c.certificateProblem);
      return null;
    }
    String group =
        c.certificateGroup != null
            ? c.certificateGroup
            : declared != null ? declared : ControlPlaneProtocol.DEFAULT_GROUP;
    String refusal = security.refusal(c, group, declared);
    if (refusal != null) {
      c.close((short) 1008, refusal);
      return null;
    }
    return group;
  }
}
