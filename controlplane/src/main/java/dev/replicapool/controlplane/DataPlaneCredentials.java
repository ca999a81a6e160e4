package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who a data plane is allowed to be: the bearer tokens the server accepts, each either the shared
 * token or the token of one data-plane group, and the group a client certificate names.
 *
 * <p>A group with a token of its own can only be served with that token: the shared token and other
 * groups' tokens are refused for it, so one group's stolen token subscribes to no other group's
 * pools. Groups without a token of their own take the shared token.
 *
 * <p>Tokens are compared as SHA-256 digests with {@link MessageDigest#isEqual}, never as strings.
 * Immutable.
 */
final class DataPlaneCredentials {
  /** The group a presented token is bound to, or {@code null} for the shared token. */
  record Grant(String tokenGroup) {
    boolean shared() {
      return tokenGroup == null;
    }
  }

  private record GroupToken(String group, byte[] digest) {}

  private final byte[] sharedDigest;
  private final List<GroupToken> groupTokens;

  DataPlaneCredentials(String sharedToken, Map<String, String> groupTokens) {
    if (sharedToken == null || sharedToken.isBlank()) {
      throw new IllegalArgumentException("a control-plane token is required");
    }
    this.sharedDigest = digest(sharedToken);
    List<GroupToken> list = new ArrayList<>();
    for (Map.Entry<String, String> e : groupTokens.entrySet()) {
      if (!ControlPlaneProtocol.validGroup(e.getKey())) {
        throw new IllegalArgumentException("not a data-plane group name: " + e.getKey());
      }
      if (e.getValue() == null || e.getValue().isBlank()) {
        throw new IllegalArgumentException("the token of group " + e.getKey() + " is empty");
      }
      byte[] d = digest(e.getValue());
      if (MessageDigest.isEqual(d, sharedDigest)
          || list.stream().anyMatch(t -> MessageDigest.isEqual(t.digest(), d))) {
        // One token for two groups (or the shared one) would serve both: refuse it.
        throw new IllegalArgumentException(
            "the token of group " + e.getKey() + " is also the shared token or another group's");
      }
      list.add(new GroupToken(e.getKey(), d));
    }
    this.groupTokens = List.copyOf(list);
  }

  /** The grant of an {@code Authorization} header value, or null when it holds no known token. */
  Grant grant(String authorization) {
    if (authorization == null) {
      return null;
    }
    byte[] presented = sha256(authorization.strip());
    // Every digest is compared, so the time taken does not tell which one matched.
    Grant found = MessageDigest.isEqual(sharedDigest, presented) ? new Grant(null) : null;
    for (GroupToken t : groupTokens) {
      if (MessageDigest.isEqual(t.digest(), presented)) {
        found = new Grant(t.group());
      }
    }
    return found;
  }

  /** True when the group has a token of its own (so the shared token does not serve it). */
  boolean hasOwnToken(String group) {
    return groupTokens.stream().anyMatch(t -> t.group().equals(group));
  }

  /**
   * Why a data plane with this grant may not serve the group, or null when it may.
   *
   * @param certificateGroup the group its client certificate names, or null
   */
  String refusal(Grant grant, String group, String certificateGroup) {
    if (certificateGroup != null && !certificateGroup.equals(group)) {
      return "the client certificate is for group " + certificateGroup + ", not " + group;
    }
    if (!grant.shared() && !grant.tokenGroup().equals(group)) {
      return "the token is for group " + grant.tokenGroup() + ", not " + group;
    }
    if (grant.shared() && hasOwnToken(group)) {
      return "group " + group + " needs its own token";
    }
    return null;
  }

  /**
   * The group a client certificate names with a {@link ControlPlaneProtocol#GROUP_URI_PREFIX} URI
   * subject alternative name, or null when it names none.
   *
   * @throws IllegalArgumentException when it names more than one group or an invalid one
   */
  static String certificateGroup(X509Certificate cert) {
    Collection<List<?>> names;
    try {
      names = cert.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException("unreadable subject alternative names", e);
    }
    List<String> groups = new ArrayList<>();
    for (List<?> san : names == null ? List.<List<?>>of() : names) {
      // Type 6 is uniformResourceIdentifier (RFC 5280 4.2.1.6).
      if (san.size() == 2
          && Objects.equals(san.get(0), 6)
          && san.get(1) instanceof String uri
          && uri.startsWith(ControlPlaneProtocol.GROUP_URI_PREFIX)) {
        groups.add(uri.substring(ControlPlaneProtocol.GROUP_URI_PREFIX.length()));
      }
    }
    if (groups.isEmpty()) {
      return null;
    }
    if (groups.size() > 1) {
      throw new IllegalArgumentException("the client certificate names several groups: " + groups);
    }
    String g = groups.get(0);
    if (!ControlPlaneProtocol.validGroup(g)) {
      throw new IllegalArgumentException("the client certificate names an invalid group");
    }
    return g;
  }

  private static byte[] digest(String token) {
    return sha256("Bearer " + token.strip());
  }

  static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
