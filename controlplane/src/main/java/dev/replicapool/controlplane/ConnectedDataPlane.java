package dev.replicapool.controlplane;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One connected data plane as the operator's admin port shows it: who it is, since when, what it
 * applied of each pool and its last answer.
 *
 * @param node the node name its hello gave
 * @param group the data-plane group it serves
 * @param remote its address as the server sees it
 * @param connectedSince when its hello was admitted
 * @param pools per pool ("namespace/name") sent to it or answered by it, sorted by name
 * @param lastAnswer its last ACK or NACK, null before the first
 */
public record ConnectedDataPlane(
    String node,
    String group,
    String remote,
    Instant connectedSince,
    Map<String, Pool> pools,
    Answer lastAnswer) {

  public ConnectedDataPlane {
    pools = Collections.unmodifiableMap(new TreeMap<>(pools)); // sorted for a reader
  }

  /**
   * What a data plane runs of one pool.
   *
   * @param appliedVersion the last version it ACKed, 0 for none
   * @param latestVersion the version the operator published last, 0 for none
   * @param rejectedVersion the version of its last NACK when newer than what it applied, else 0
   * @param rejectedReason why it refused that version, else null
   */
  public record Pool(
      long appliedVersion, long latestVersion, long rejectedVersion, String rejectedReason) {}

  /**
   * One ACK or NACK.
   *
   * @param accepted true for an ACK
   * @param reason why a NACK refused it, null for an ACK
   */
  public record Answer(String pool, long version, boolean accepted, String reason, Instant at) {}
}
