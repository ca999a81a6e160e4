package dev.replicapool.operator;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import java.util.Set;

/**
 * How an operator process runs.
 *
 * @param namespaces namespaces to watch; empty for all
 * @param controlPlaneHost address the data planes dial
 * @param controlPlanePort 0 for any free port
 * @param token shared secret data planes present as a bearer token
 * @param tlsCertPem optional certificate (PEM) for the control-plane port; null for plain TCP
 * @param tlsKeyPem its private key (PEM)
 * @param adminPort port of /metrics, /healthz, /readyz; 0 for any free port
 * @param leaderElectionNamespace where the leader Lease lives; null runs without leader election
 * @param leaderIdentity this replica's name in the leader Lease; null takes JOSDK's default (the
 *     HOSTNAME environment variable, the Pod's name, else a random UUID)
 * @param exitOnLostLead under leader election, end the process when the lead is lost while running
 *     (so that two replicas never reconcile at once); never on {@code close()}. Only tests that run
 *     several operators in one JVM turn it off.
 */
public record OperatorConfig(
    Set<String> namespaces,
    String controlPlaneHost,
    int controlPlanePort,
    String token,
    String tlsCertPem,
    String tlsKeyPem,
    int adminPort,
    String leaderElectionNamespace,
    String leaderIdentity,
    boolean exitOnLostLead) {

  public static final String LEADER_LEASE_NAME = "replicapool-operator-leader";

  /** Without a leader identity of its own: JOSDK's default; exits when the lead is lost. */
  public OperatorConfig(
      Set<String> namespaces,
      String controlPlaneHost,
      int controlPlanePort,
      String token,
      String tlsCertPem,
      String tlsKeyPem,
      int adminPort,
      String leaderElectionNamespace) {
    this(
        namespaces,
        controlPlaneHost,
        controlPlanePort,
        token,
        tlsCertPem,
        tlsKeyPem,
        adminPort,
        leaderElectionNamespace,
        null,
        true);
  }

  /** A single-process operator on loopback with random ports, for tests and the local run. */
  public static OperatorConfig local(String token) {
    return new OperatorConfig(Set.of(), "127.0.0.1", 0, token, null, null, 0, null);
  }

  public OperatorConfig withPorts(int controlPlane, int admin) {
    return new OperatorConfig(
        namespaces,
        controlPlaneHost,
        controlPlane,
        token,
        tlsCertPem,
        tlsKeyPem,
        admin,
        leaderElectionNamespace,
        leaderIdentity,
        exitOnLostLead);
  }

  public OperatorConfig withNamespaces(Set<String> watched) {
    return new OperatorConfig(
        watched,
        controlPlaneHost,
        controlPlanePort,
        token,
        tlsCertPem,
        tlsKeyPem,
        adminPort,
        leaderElectionNamespace,
        leaderIdentity,
        exitOnLostLead);
  }

  public OperatorConfig withLeaderElection(String namespace) {
    return new OperatorConfig(
        namespaces,
        controlPlaneHost,
        controlPlanePort,
        token,
        tlsCertPem,
        tlsKeyPem,
        adminPort,
        namespace,
        leaderIdentity,
        exitOnLostLead);
  }

  /**
   * Leader election with an identity of its own; {@code exitOnLostLead} false for several operators
   * in one JVM (tests), where losing the lead must not end the JVM.
   */
  public OperatorConfig withLeaderIdentity(String identity, boolean exitOnLostLead) {
    return new OperatorConfig(
        namespaces,
        controlPlaneHost,
        controlPlanePort,
        token,
        tlsCertPem,
        tlsKeyPem,
        adminPort,
        leaderElectionNamespace,
        identity,
        exitOnLostLead);
  }

  @Override
  public String toString() {
    return "OperatorConfig[namespaces="
        + namespaces
        + ", controlPlane="
        + controlPlaneHost
        + ":"
        + (controlPlanePort == 0 ? ControlPlaneProtocol.DEFAULT_PORT : controlPlanePort)
        + ", tls="
        + (tlsCertPem != null)
        + ", adminPort="
        + adminPort
        + ", leaderElection="
        + leaderElectionNamespace
        + (leaderIdentity == null ? "" : ", identity=" + leaderIdentity)
        + "]";
  }
}
