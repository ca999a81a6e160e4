package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The install as a user gets it: {@code manifests/} rendered by the real {@code kubectl kustomize}.
 * Rendering happens in a temporary copy of the base with a fresh token file, as {@code
 * manifests/generate-token.sh} would write it, so the test never depends on (or leaves) a token in
 * the work tree.
 */
final class RenderedManifests {
  static final String NAMESPACE = "replicapool-system";
  static final String OPERATOR_SA = "system:serviceaccount:replicapool-system:replicapool-operator";
  static final String DATAPLANE_SA =
      "system:serviceaccount:replicapool-system:replicapool-dataplane";

  final String yaml;
  final List<HasMetadata> objects;
  final String token;

  private RenderedManifests(String yaml, List<HasMetadata> objects, String token) {
    this.yaml = yaml;
    this.objects = objects;
    this.token = token;
  }

  /** The repository's root: Maven runs the tests in {@code e2e/}. */
  static Path repoRoot() {
    return Path.of("..").toAbsolutePath().normalize();
  }

  static Path manifestsDir() {
    return repoRoot().resolve("manifests");
  }

  /** Renders a copy of manifests/ with its own token; fails the test on a render error. */
  static RenderedManifests render(Kubectl kubectl, KubernetesClient client) {
    String token = newToken();
    return render(kubectl, client, copyOfBase(token), token);
  }

  /** A fresh token, as generate-token.sh would write it. */
  static String newToken() {
    return HexFormat.of().formatHex(randomBytes(32));
  }

  /** Renders a kustomization (an overlay of a {@link #copyOfBase} made with this token). */
  static RenderedManifests render(
      Kubectl kubectl, KubernetesClient client, Path kustomization, String token) {
    Kubectl.Result rendered = kubectl.run("kustomize", kustomization.toString());
    assertThat(rendered.exitCode())
        .as("kubectl kustomize %s failed:\n%s", kustomization, rendered.stderr())
        .isZero();
    List<HasMetadata> objects =
        client
            .load(new ByteArrayInputStream(rendered.stdout().getBytes(StandardCharsets.UTF_8)))
            .items();
    assertThat(objects).as("rendered objects").isNotEmpty();
    return new RenderedManifests(rendered.stdout(), objects, token);
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }

  /**
   * manifests/ copied to a temporary folder, without a user's token (or stream certificates), with
   * a fresh token.
   */
  static Path copyOfBase(String token) {
    try {
      Path target = Files.createTempDirectory("replicapool-manifests-");
      Path source = manifestsDir();
      try (Stream<Path> files = Files.walk(source)) {
        for (Path p : files.toList()) {
          Path rel = source.relativize(p);
          if (rel.toString().equals("token")
              || isGeneratedStreamCertificate(rel)
              || isGeneratedNamespacedRbac(rel)) {
            continue;
          }
          Path dest = target.resolve(rel.toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(dest);
          } else {
            Files.copy(p, dest);
          }
        }
      }
      Files.writeString(target.resolve("token"), token);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A kustomization in a new folder next to {@code base} (a {@link #copyOfBase}) that renders the
   * base with the Component {@code component}, as docs/INSTALL.md tells a user to write one.
   */
  static Path overlayWithComponent(Path base, Path component, String folderPrefix)
      throws IOException {
    Path overlay = Files.createTempDirectory(base.getParent(), folderPrefix);
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        "resources: ["
            + overlay.relativize(base)
            + "]\ncomponents: ["
            + overlay.relativize(component)
            + "]\n");
    return overlay;
  }

  /** What generate-stream-certs.sh writes into the mTLS Component (gitignored, like the token). */
  static boolean isGeneratedStreamCertificate(Path rel) {
    String name = rel.getFileName().toString();
    return rel.startsWith(Path.of("components", "mtls"))
        && (name.endsWith(".crt") || name.endsWith(".key") || name.endsWith(".tmp"));
  }

  /** What generate-namespaced-rbac.sh writes into the namespaced Component (gitignored). */
  static boolean isGeneratedNamespacedRbac(Path rel) {
    String name = rel.getFileName().toString();
    return rel.startsWith(Path.of("components", "namespaced"))
        && (name.equals("watched-namespaces.yaml") || name.equals("operator-namespaces.yaml"));
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  <T extends HasMetadata> T one(Class<T> type, String name) {
    List<T> found = all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).toList();
    assertThat(found).as("%s %s in the rendered manifests", type.getSimpleName(), name).hasSize(1);
    return found.get(0);
  }

  /** The selected objects as one multi-document YAML stream. */
  String yamlOf(Predicate<HasMetadata> which) {
    return objects.stream()
        .filter(which)
        .map(Serialization::asYaml)
        .collect(Collectors.joining("\n"));
  }

  /**
   * Every object through a server-side dry run (nothing is stored); the caller judges the answer.
   */
  Kubectl.Result serverSideDryRun(Kubectl kubectl) {
    return kubectl.runWithInput(
        yamlOf(o -> true),
        "apply",
        "--server-side",
        "--force-conflicts",
        "--dry-run=server",
        "-f",
        "-");
  }

  /** Applies the selected objects for real (server-side) and fails the test if kubectl does. */
  void apply(Kubectl kubectl, Predicate<HasMetadata> which) {
    Kubectl.Result r =
        kubectl.runWithInput(
            yamlOf(which), "apply", "--server-side", "--force-conflicts", "-f", "-");
    assertThat(r.exitCode()).as(r.output()).isZero();
  }

  /** Namespace, CRD, ServiceAccounts and RBAC for real: what auth checks and the operator need. */
  void applyNamespaceCrdAndRbac(Kubectl kubectl) {
    apply(kubectl, o -> o.getKind().equals("Namespace"));
    apply(kubectl, o -> o.getKind().equals("CustomResourceDefinition"));
    Kubectl.Result established =
        kubectl.run(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/replicapools.replicapool.dev");
    assertThat(established.exitCode()).as(established.output()).isZero();
    apply(
        kubectl,
        o ->
            List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
                .contains(o.getKind()));
  }

  /**
   * What docs/INSTALL.md tells a user to do for self-registering replicas: a ServiceAccount {@code
   * serviceAccount} in {@code namespace}, bound there to the ClusterRole replicapool-registrar by
   * the RoleBinding {@code <serviceAccount>-registrar}.
   */
  static void bindRegistrarRole(KubernetesClient client, String namespace, String serviceAccount) {
    client
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(serviceAccount)
                .endMetadata()
                .build())
        .create();
    client
        .rbac()
        .roleBindings()
        .inNamespace(namespace)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(serviceAccount + "-registrar")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("replicapool-registrar")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(serviceAccount)
                .withNamespace(namespace)
                .endSubject()
                .build())
        .create();
  }

  static PodTemplateSpec template(Deployment d) {
    return d.getSpec().getTemplate();
  }

  private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  /**
   * The container's args as the kubelet passes them: {@code $(VAR)} replaced by the container's env
   * (downward API fields by the given stand-in values).
   */
  static String[] expandedArgs(Container c, Map<String, String> fieldValues) {
    Map<String, String> env =
        c.getEnv().stream()
            .collect(
                Collectors.toMap(
                    EnvVar::getName,
                    e -> {
                      if (e.getValue() != null) {
                        return e.getValue();
                      }
                      String field = e.getValueFrom().getFieldRef().getFieldPath();
                      assertThat(fieldValues)
                          .as("a value for fieldRef %s", field)
                          .containsKey(field);
                      return fieldValues.get(field);
                    }));
    return c.getArgs().stream()
        .map(
            a -> {
              Matcher m = VAR.matcher(a);
              StringBuilder out = new StringBuilder();
              while (m.find()) {
                assertThat(env)
                    .as("%s uses $(%s), which its container does not define", a, m.group(1))
                    .containsKey(m.group(1));
                m.appendReplacement(out, Matcher.quoteReplacement(env.get(m.group(1))));
              }
              m.appendTail(out);
              return out.toString();
            })
        .toArray(String[]::new);
  }
}
