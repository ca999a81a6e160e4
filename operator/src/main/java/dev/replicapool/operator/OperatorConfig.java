package dev.replicapool.operator;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How an operator process runs.
 *
 * @param namespaces namespaces to watch; empty for all
 * @param controlPlaneHost address the data planes dial
 * @param controlPlanePort 0 for any free port
 * @param token shared secret data planes present as a bearer token
 * @param tlsCertPem optional certificate (PEM) for the control-plane port; null for plain TCP
 * @param tlsKeyPem its private key (PEM)
 * @param clientCaPem optional CA certificate(s) (PEM) that sign the data planes' client
 *     certificates: when set, the control-plane port requires one (mutual TLS) on top of the token.
 *     Needs {@code tlsCertPem} and {@code tlsKeyPem}
 * @param adminPort port of /metrics, /healthz, /readyz; 0 for any free port
 * @param leaderElectionNamespace where the leader Lease lives; null runs without leader election
 * @param leaderIdentity this replica's name in the leader Lease; null takes JOSDK's default (the
 *     HOSTNAME environment variable, the Pod's name, else a random UUID)
 * @param exitOnLostLead under leader election, end the process when the lead is lost while running
 *     (so that two replicas never reconcile at once); never on {@code close()}. Only tests that run
 *     several operators in one JVM turn it off.
 * @param groupTokens data-plane group to its own token: a data plane of such a group must present
 *     it, and it serves no other group; groups without one take {@code token}. Empty for none
 * @param otlpEndpoint the OTLP/HTTP receiver reconciles and pushes are traced to; null: off
 * @param traceSampling the share of those traces kept, 0 to 1
 */
@RecordBuilder
public record OperatorConfig(
    Set<String> namespaces,
    String controlPlaneHost,
    int controlPlanePort,
    String token,
    String tlsCertPem,
    String tlsKeyPem,
    String clientCaPem,
    int adminPort,
    String leaderElectionNamespace,
    String leaderIdentity,
    boolean exitOnLostLead,
    Map<String, String> groupTokens,
    java.net.URI otlpEndpoint,
    double traceSampling) {

  public static final String LEADER_LEASE_NAME = "replicapool-operator-leader";

  public OperatorConfig {
    groupTokens = groupTokens == null ? Map.of() : Map.copyOf(groupTokens);
    if (otlpEndpoint != null
        && !"http".equals(otlpEndpoint.getScheme())
        && !"https".equals(otlpEndpoint.getScheme())) {
      throw new IllegalArgumentException("--otlp-endpoint must be an http:// or https:// URL");
    }
    if (!(traceSampling >= 0 && traceSampling <= 1)) {
      throw new IllegalArgumentException("--trace-sampling must be between 0 and 1");
    }
    if ((tlsCertPem == null) != (tlsKeyPem == null)) {
      throw new IllegalArgumentException(
          "TLS on the control-plane port needs both a certificate and its private key");
    }
    if (clientCaPem != null && tlsCertPem == null) {
      throw new IllegalArgumentException(
          "a client CA (mutual TLS) needs TLS on the control-plane port: a certificate and key");
    }
  }

  /**
   * Without a client CA (see {@link #withClientCa}) and without a leader identity of its own:
   * JOSDK's default; exits when the lead is lost.
   */
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
        null,
        adminPort,
        leaderElectionNamespace,
        null,
        true,
        Map.of(),
        null,
        1.0);
  }

  /** A single-process operator on loopback with random ports, for tests and the local run. */
  public static OperatorConfig local(String token) {
    return new OperatorConfig(Set.of(), "127.0.0.1", 0, token, null, null, 0, null);
  }

  public OperatorConfig withPorts(int controlPlane, int admin) {
    return edit().controlPlanePort(controlPlane).adminPort(admin).build();
  }

  /**
   * Data planes must present a client certificate signed by one of these CAs (PEM), on top of the
   * token; needs TLS (a certificate and key) on the control-plane port.
   */
  public OperatorConfig withClientCa(String pem) {
    return edit().clientCaPem(pem).build();
  }

  /** Tokens of their own for these data-plane groups (group to token). */
  public OperatorConfig withGroupTokens(Map<String, String> tokens) {
    return edit().groupTokens(tokens).build();
  }

  /**
   * Reconciles and pushes traced to an OTLP/HTTP receiver ({@code endpoint}, null: off), that share
   * of them kept.
   */
  public OperatorConfig withTracing(java.net.URI endpoint, double sampling) {
    return edit().otlpEndpoint(endpoint).traceSampling(sampling).build();
  }

  public OperatorConfig withNamespaces(Set<String> watched) {
    return edit().namespaces(watched).build();
  }

  public OperatorConfig withLeaderElection(String namespace) {
    return edit().leaderElectionNamespace(namespace).build();
  }

  /**
   * Leader election with an identity of its own; {@code exitOnLostLead} false for several operators
   * in one JVM (tests), where losing the lead must not end the JVM.
   */
  public OperatorConfig withLeaderIdentity(String identity, boolean exitOnLostLead) {
    return edit().leaderIdentity(identity).exitOnLostLead(exitOnLostLead).build();
  }

  private OperatorConfigBuilder edit() {
    return OperatorConfigBuilder.builder(this);
  }

  /** Says whether TLS and mutual TLS are on; never prints the token, keys or certificates. */
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
        + ", mutualTls="
        + (clientCaPem != null)
        + (groupTokens.isEmpty() ? "" : ", groupTokens=" + new TreeSet<>(groupTokens.keySet()))
        + ", adminPort="
        + adminPort
        + ", leaderElection="
        + leaderElectionNamespace
        + (leaderIdentity == null ? "" : ", identity=" + leaderIdentity)
        + "]";
  }
}
