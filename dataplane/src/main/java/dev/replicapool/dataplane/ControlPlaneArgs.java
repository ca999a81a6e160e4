package dev.replicapool.dataplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.Pem;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlaneArgs.HostPort;
import dev.replicapool.dataplane.DataPlaneArgs.UsageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The data plane's flags that say how it reaches the operator: the control plane's address, the
 * token, this node's name, its group and TLS (a CA, and a client certificate for mutual TLS).
 * {@link DataPlaneArgs} reads the rest of the command line and hands these flags here.
 */
final class ControlPlaneArgs {
  private ControlPlaneArgs() {}

  /** The control-plane client's options from the parsed flags; reads the files they name. */
  static ControlPlaneClient.Options options(Map<String, String> values, Map<String, String> env)
      throws UsageException {
    return withTls(controlPlane(values, env), values);
  }

  /** Where the control plane is, the token, this node's name and its group; no TLS yet. */
  private static ControlPlaneClient.Options controlPlane(
      Map<String, String> values, Map<String, String> env) throws UsageException {
    String cp = values.get("control-plane");
    if (cp == null) {
      throw new UsageException("--control-plane HOST:PORT is required");
    }
    HostPort control =
        DataPlaneArgs.hostPort("control-plane", cp, null, ControlPlaneProtocol.DEFAULT_PORT);
    String tokenFile = values.get("token-file");
    if (tokenFile == null) {
      throw new UsageException("--token-file is required");
    }
    String token = read("token-file", tokenFile).strip();
    if (token.isEmpty()) {
      throw new UsageException("the token file " + tokenFile + " is empty");
    }
    String node = values.get("node");
    if (node == null) {
      node = env.getOrDefault("NODE_NAME", env.get("HOSTNAME"));
    }
    if (node == null || node.isBlank()) {
      throw new UsageException("--node is required (no NODE_NAME or HOSTNAME in the environment)");
    }
    ControlPlaneClient.Options cpo =
        ControlPlaneClient.Options.of(control.host(), control.port(), token, node.strip());
    if (values.containsKey("group")) {
      try {
        cpo = cpo.withGroup(values.get("group").strip());
      } catch (IllegalArgumentException e) {
        throw new UsageException("--group: " + e.getMessage());
      }
    }
    return cpo;
  }

  /** TLS to the control plane: a CA turns it on, a client certificate and key make it mutual. */
  private static ControlPlaneClient.Options withTls(
      ControlPlaneClient.Options cpo, Map<String, String> values) throws UsageException {
    boolean cert = values.containsKey("control-plane-cert");
    boolean key = values.containsKey("control-plane-key");
    if (cert != key) {
      throw new UsageException(
          "--control-plane-cert and --control-plane-key go together: give both or neither");
    }
    if (cert && !values.containsKey("control-plane-ca")) {
      throw new UsageException(
          "--control-plane-cert (mutual TLS) needs TLS: give --control-plane-ca too");
    }
    if (values.containsKey("control-plane-ca")) {
      cpo = cpo.withTrustPem(pem(values, "control-plane-ca", "CERTIFICATE"));
    }
    if (cert) {
      cpo =
          cpo.withClientCertificate(
              pem(values, "control-plane-cert", "CERTIFICATE"),
              pem(values, "control-plane-key", "PRIVATE KEY"));
    }
    return cpo;
  }

  /** The PEM file the flag names; refuses one without a {@code -----BEGIN <kind>} block. */
  private static String pem(Map<String, String> values, String flag, String kind)
      throws UsageException {
    String path = values.get(flag);
    String pem = read(flag, path);
    if (!Pem.holds(pem, kind)) {
      throw new UsageException(
          "--" + flag + ": " + path + " holds no PEM " + kind.toLowerCase(Locale.ROOT));
    }
    return pem;
  }

  private static String read(String flag, String path) throws UsageException {
    try {
      return Files.readString(Path.of(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UsageException("--" + flag + ": cannot read " + path + " (" + e.getMessage() + ")");
    }
  }
}
