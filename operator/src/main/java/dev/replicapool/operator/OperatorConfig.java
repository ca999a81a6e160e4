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
 */
public record OperatorConfig(
    Set<String> namespaces,
    String controlPlaneHost,
    int controlPlanePort,
    String token,
    String tlsCertPem,
    String tlsKeyPem,
    int adminPort,
    String leaderElectionNamespace) {

  public static final String LEADER_LEASE_NAME = "replicapool-operator-leader";

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
        leaderElectionNamespace);
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
        leaderElectionNamespace);
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
        namespace);
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
        + "]";
  }
}
