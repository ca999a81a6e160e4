package dev.replicapool.registrar;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Where the API server is and how to prove who the registrar is, read the way kubectl and fabric8
 * read it (a {@code --kubeconfig}, else {@code $KUBECONFIG}, else {@code ~/.kube/config}, else the
 * Pod's service account), for the kube configs the JDK's HTTP client can serve alone: a server, its
 * CA (file or data, else the JDK's trust store), and a bearer token, a token file (read at every
 * call: service-account tokens rotate), a client certificate or a user name and password. Anything
 * else (exec plugins, auth providers, impersonation, proxies, skipped TLS checks, a list of kube
 * configs, fabric8's own environment overrides) reads as empty, and the registrar uses fabric8's
 * client instead, which reads them all; so does a config that cannot be read, which fabric8 then
 * reports in its words.
 */
record KubeAccess(
    URI server,
    Optional<SSLContext> tls,
    Supplier<Optional<String>> authorization,
    Optional<String> namespace) {

  static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private static final Set<String> CLUSTER_KEYS =
      Set.of("server", "certificate-authority", "certificate-authority-data", "extensions");
  private static final Set<String> USER_KEYS =
      Set.of(
          "token",
          "tokenFile",
          "client-certificate",
          "client-certificate-data",
          "client-key",
          "client-key-data",
          "username",
          "password",
          "extensions");

  /** Read as the registrar's command line does: its environment, home and service account. */
  static Optional<KubeAccess> read(Optional<Path> kubeconfig) {
    return read(
        kubeconfig,
        System.getenv(),
        Path.of(System.getProperty("user.home")),
        SERVICE_ACCOUNT,
        System.getProperties().stringPropertyNames().stream()
            .anyMatch(p -> p.startsWith("kubernetes.")));
  }

  static Optional<KubeAccess> read(
      Optional<Path> kubeconfig,
      Map<String, String> env,
      Path home,
      Path serviceAccount,
      boolean fabric8Properties) {
    try {
      if (kubeconfig.isPresent()) {
        return fromKubeconfig(kubeconfig.get());
      }
      if (fabric8Properties || env.keySet().stream().anyMatch(KubeAccess::fabric8Override)) {
        return Optional.empty();
      }
      String listed = env.get("KUBECONFIG");
      if (listed != null && !listed.isEmpty()) {
        return listed.contains(java.io.File.pathSeparator)
            ? Optional.empty() // merged configs: fabric8's to merge
            : fromKubeconfig(Path.of(listed));
      }
      Path config = home.resolve(".kube").resolve("config");
      if (Files.isRegularFile(config)) {
        return fromKubeconfig(config);
      }
      return inCluster(env, serviceAccount);
    } catch (Exception e) {
      return Optional.empty(); // fabric8 reads it again and says what is wrong
    }
  }

  /**
   * KUBERNETES_MASTER, KUBERNETES_AUTH_TOKEN and the like, which fabric8 lets override a config.
   */
  private static boolean fabric8Override(String name) {
    return name.startsWith("KUBERNETES_")
        && !name.startsWith("KUBERNETES_SERVICE_")
        && !name.startsWith("KUBERNETES_PORT");
  }

  private static Optional<KubeAccess> inCluster(Map<String, String> env, Path account)
      throws Exception {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    String port = env.get("KUBERNETES_SERVICE_PORT");
    Path token = account.resolve("token");
    if (host == null || port == null || !Files.isRegularFile(token)) {
      return Optional.empty();
    }
    String authority = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    Path ca = account.resolve("ca.crt");
    Path namespace = account.resolve("namespace");
    return Optional.of(
        new KubeAccess(
            URI.create("https://" + authority),
            Optional.of(
                tls(
                    Files.isRegularFile(ca)
                        ? Optional.of(Files.readAllBytes(ca))
                        : Optional.empty(),
                    Optional.empty(),
                    Optional.empty())),
            bearerFromFile(token),
            Files.isRegularFile(namespace)
                ? Optional.of(Files.readString(namespace).trim())
                : Optional.empty()));
  }

  static Optional<KubeAccess> fromKubeconfig(Path path) throws Exception {
    Object root =
        new Load(LoadSettings.builder().build())
            .loadFromString(Files.readString(path, StandardCharsets.UTF_8));
    if (!(root instanceof Map<?, ?> config)) {
      return Optional.empty();
    }
    Path dir = path.toAbsolutePath().getParent();
    Optional<Map<?, ?>> context =
        named(config, "contexts", config.get("current-context")).map(c -> map(c.get("context")));
    if (context.isEmpty()) {
      return Optional.empty();
    }
    Map<?, ?> cluster =
        named(config, "clusters", context.get().get("cluster"))
            .map(c -> map(c.get("cluster")))
            .orElse(Map.of());
    Map<?, ?> user =
        named(config, "users", context.get().get("user"))
            .map(c -> map(c.get("user")))
            .orElse(Map.of());
    if (!(cluster.get("server") instanceof String server)
        || !CLUSTER_KEYS.containsAll(cluster.keySet())
        || !USER_KEYS.containsAll(user.keySet())) {
      return Optional.empty();
    }
    URI uri = URI.create(server);
    Optional<byte[]> ca = bytes(cluster, "certificate-authority", dir);
    Optional<byte[]> certificate = bytes(user, "client-certificate", dir);
    Optional<byte[]> key = bytes(user, "client-key", dir);
    if (certificate.isPresent() != key.isPresent()) {
      return Optional.empty();
    }
    Optional<SSLContext> tls = Optional.empty();
    if ("https".equals(uri.getScheme())) {
      tls = Optional.of(tls(ca, certificate, key));
    } else if (!"http".equals(uri.getScheme()) || certificate.isPresent()) {
      return Optional.empty();
    }
    Supplier<Optional<String>> authorization;
    if (user.get("token") instanceof String token && !token.isEmpty()) {
      authorization = () -> Optional.of("Bearer " + token);
    } else if (user.get("tokenFile") instanceof String file && !file.isEmpty()) {
      authorization = bearerFromFile(dir.resolve(file));
    } else if (user.get("username") instanceof String name
        && user.get("password") instanceof String password) {
      String basic =
          Base64.getEncoder()
              .encodeToString((name + ":" + password).getBytes(StandardCharsets.UTF_8));
      authorization = () -> Optional.of("Basic " + basic);
    } else {
      authorization = Optional::empty;
    }
    Optional<String> namespace =
        context.get().get("namespace") instanceof String ns && !ns.isEmpty()
            ? Optional.of(ns)
            : Optional.empty();
    return Optional.of(new KubeAccess(uri, tls, authorization, namespace));
  }

  /** A token file read at every call; a file that cannot be read fails that call, not the next. */
  private static Supplier<Optional<String>> bearerFromFile(Path file) {
    return () -> {
      try {
        return Optional.of("Bearer " + Files.readString(file).trim());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot read the token file " + file, e);
      }
    };
  }

  /** The CA (else the JDK's trust store) and the client's certificate and key. */
  private static SSLContext tls(
      Optional<byte[]> ca, Optional<byte[]> certificate, Optional<byte[]> key) throws Exception {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    if (ca.isPresent()) {
      KeyStore anchors = KeyStore.getInstance("PKCS12");
      anchors.load(null, null);
      int i = 0;
      for (Certificate c : Pem.certificates(ca.get())) {
        anchors.setCertificateEntry("ca-" + i++, c);
      }
      trust.init(anchors);
    } else {
      trust.init((KeyStore) null);
    }
    KeyManagerFactory keys = null;
    if (certificate.isPresent()) {
      PrivateKey privateKey =
          Pem.privateKey(key.orElseThrow())
              .orElseThrow(() -> new IllegalArgumentException("a key form the JDK does not read"));
      List<Certificate> chain = Pem.certificates(certificate.get());
      // JKS, not PKCS12: a PKCS12 store encrypts the key it is given and the key manager decrypts
      // it, each with 10,000 rounds of PBKDF2, about 45 ms of a registrar's start-up on a JVM just
      // started; the store lives in memory only, so its protection buys nothing.
      KeyStore client = KeyStore.getInstance("JKS");
      client.load(null, null);
      client.setKeyEntry("client", privateKey, new char[0], chain.toArray(Certificate[]::new));
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(client, new char[0]);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  /** {@code key} (a path, relative to the kube config) or {@code key-data} (base64). */
  private static Optional<byte[]> bytes(Map<?, ?> section, String key, Path dir)
      throws java.io.IOException {
    if (section.get(key + "-data") instanceof String data && !data.isEmpty()) {
      return Optional.of(Base64.getMimeDecoder().decode(data));
    }
    if (section.get(key) instanceof String file && !file.isEmpty()) {
      return Optional.of(Files.readAllBytes(dir.resolve(file)));
    }
    return Optional.empty();
  }

  /** The entry of list {@code list} whose name is {@code name}. */
  private static Optional<Map<?, ?>> named(Map<?, ?> config, String list, Object name) {
    if (!(name instanceof String) || !(config.get(list) instanceof List<?> entries)) {
      return Optional.empty();
    }
    return entries.stream()
        .filter(e -> e instanceof Map<?, ?> m && name.equals(m.get("name")))
        .<Map<?, ?>>map(e -> (Map<?, ?>) e)
        .findFirst();
  }

  private static Map<?, ?> map(Object value) {
    return value instanceof Map<?, ?> m ? m : Map.of();
  }
}
