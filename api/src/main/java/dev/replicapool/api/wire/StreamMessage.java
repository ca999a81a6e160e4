package dev.replicapool.api.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One frame on the control-plane stream.
 *
 * <ul>
 *   <li>operator to data plane: {@code snapshot} (with {@link #snapshot}) or {@code remove} (pool
 *       and version only); then {@code synced} once the data plane has everything the operator
 *       knows, so that a data plane with no pools to serve can still report ready ({@link
 *       #complete} says whether it may also drop pools the stream never named);
 *   <li>data plane to operator: {@code hello} (node, and the data-plane group it serves; no group
 *       means {@link ControlPlaneProtocol#DEFAULT_GROUP}, or the group of its client certificate),
 *       then {@code ack} or {@code nack} (pool, version, and for a NACK the error) for every
 *       snapshot and removal; {@code answers} carries several of them in one frame, for snapshots
 *       that arrived and were applied together.
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamMessage(
    Type type,
    String node,
    String group,
    String pool,
    Long version,
    PoolSnapshot snapshot,
    String error,
    List<StreamMessage> answers,
    Boolean complete) {

  public enum Type {
    hello,
    snapshot,
    remove,
    synced,
    ack,
    nack,
    answers
  }

  public static StreamMessage hello(String node) {
    return hello(node, null);
  }

  /**
   * @param group the data-plane group this data plane serves; null leaves it to the operator (the
   *     group of the client certificate, else the default group)
   */
  public static StreamMessage hello(String node, String group) {
    return new StreamMessage(Type.hello, node, group, null, null, null, null, null, null);
  }

  public static StreamMessage snapshot(PoolSnapshot s) {
    return new StreamMessage(Type.snapshot, null, null, s.pool(), s.version(), s, null, null, null);
  }

  public static StreamMessage remove(String pool, long version) {
    return new StreamMessage(Type.remove, null, null, pool, version, null, null, null, null);
  }

  /**
   * @param complete true when every pool the operator knows was sent before it: a data plane may
   *     then drop the pools it serves that this stream never named (deleted while the two were
   *     apart); false when the operator gave up waiting for some pools
   */
  public static StreamMessage synced(boolean complete) {
    return new StreamMessage(Type.synced, null, null, null, null, null, null, null, complete);
  }

  public static StreamMessage ack(String pool, long version) {
    return new StreamMessage(Type.ack, null, null, pool, version, null, null, null, null);
  }

  /** Several {@code ack} and {@code nack} messages in one frame. */
  public static StreamMessage answers(List<StreamMessage> answers) {
    return new StreamMessage(
        Type.answers, null, null, null, null, null, null, List.copyOf(answers), null);
  }

  public static StreamMessage nack(String pool, long version, String error) {
    return new StreamMessage(Type.nack, null, null, pool, version, null, error, null, null);
  }
}
