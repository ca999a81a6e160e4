package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The images have one definition: images/base/Dockerfile (Debian with its JRE) and each module's
 * Dockerfile on it, which scripts/build-images.sh builds with Docker or, pulling no image, with
 * buildah (--oci). These tests hold that definition to what Maven produces and the manifests use,
 * and keep it the only one; {@link ImageTarsTest} checks each image tar --oci writes against its
 * Dockerfile, so the image a local cluster runs is the one users build.
 */
class ImagesTest {
  static final Path ROOT = RenderedManifests.repoRoot();
  static final Path SCRIPT = ROOT.resolve("scripts").resolve("build-images.sh");
  static final Path BASE_DOCKERFILE = ROOT.resolve("images/base/Dockerfile");

  /** Dockerfile, Containerfile, Dockerfile.dev, x.Dockerfile; not this test's Dockerfile.java. */
  static final Pattern IMAGE_DEFINITION =
      Pattern.compile(
          "(Dockerfile|Containerfile)(\\.(?!java$).*)?|.*\\.(Dockerfile|Containerfile)");

  @ParameterizedTest
  @ValueSource(strings = {"operator", "dataplane", "sample-replica"})
  void dockerfileCopiesWhatMavenBuildsAndRunsAsNonRoot(String module) throws IOException {
    String dockerfile = Files.readString(ROOT.resolve(module).resolve("Dockerfile"));
    String jar = "replicapool-" + module + ".jar";
    assertThat(dockerfile)
        .contains("COPY target/lib/ /app/lib/")
        .contains("COPY target/" + jar + " /app/app.jar")
        .containsPattern("(?m)^USER 65532:65532$")
        .containsPattern("(?m)^ENTRYPOINT \\[\"java\", .*\"-jar\", \"/app/app.jar\"\\]$");

    String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
    assertThat(pom)
        .as("%s/pom.xml names the jar %s with Class-Path lib/", module, jar)
        .contains("<artifactId>replicapool-" + module + "</artifactId>")
        .contains("<finalName>${project.artifactId}</finalName>")
        .contains("<classpathPrefix>lib/</classpathPrefix>")
        .contains("<outputDirectory>${project.build.directory}/lib</outputDirectory>");

    String script = Files.readString(SCRIPT);
    assertThat(script).contains(module).contains("replicapool/$m:$tag");
  }

  /** A second Dockerfile, or a module image on another base, would be a second definition. */
  @Test
  void theDockerfilesAreTheOnlyImageDefinitionAndEveryModuleStartsFromTheBase() throws IOException {
    Set<String> dockerfiles;
    try (Stream<Path> files = Files.walk(ROOT)) {
      dockerfiles =
          files
              .filter(p -> IMAGE_DEFINITION.matcher(p.getFileName().toString()).matches())
              .map(p -> ROOT.relativize(p).toString())
              .filter(p -> !p.contains("target/") && !p.startsWith(".") && !p.contains("/."))
              .collect(Collectors.toCollection(TreeSet::new));
    }
    assertThat(dockerfiles)
        .containsExactlyInAnyOrder(
            "images/base/Dockerfile",
            "images/pause/Dockerfile",
            "operator/Dockerfile",
            "dataplane/Dockerfile",
            "sample-replica/Dockerfile");
    for (String module : List.of("operator", "dataplane", "sample-replica")) {
      String dockerfile = Files.readString(ROOT.resolve(module).resolve("Dockerfile"));
      assertThat(Pattern.compile("(?m)^FROM .*$").matcher(dockerfile).results().count())
          .as("%s/Dockerfile has one FROM", module)
          .isEqualTo(1);
      assertThat(dockerfile)
          .containsPattern("(?m)^ARG BASE=replicapool/jre-base:\\S+$")
          .containsPattern("(?m)^FROM \\$\\{BASE\\}$");
    }
  }

  /**
   * Docker and --oci build the same files; only the Debian root under the base differs in where it
   * comes from (debian:RELEASE-slim, or mmdebstrap of RELEASE, read from the base Dockerfile).
   */
  @Test
  void dockerAndOciBuildTheSameDockerfilesOnTheSameRelease() throws IOException {
    String script = Files.readString(SCRIPT);
    assertThat(script)
        .as("Docker: the base, then each module on it, its RUN steps on loopback only")
        .contains("\"$docker\" build -t \"$base\" images/base/")
        .contains(
            "\"$docker\" build --network=none --build-arg \"BASE=$base\" -t \"$image\" \"$m/\"")
        .as("--oci: the same base Dockerfile on an mmdebstrap root, then each module likewise")
        .containsPattern(
            "buildah bud [^\\n]*--build-arg \"DEBIAN_ROOT=\\$root\"[\\s\\\\]*-t \"\\$base\" images/base/")
        .contains(
            "oci_image \"docker.io/replicapool/$m:$tag\" \"$m/\" \"$m/Dockerfile\" \"$m\""
                + " --build-arg \"BASE=$base\" \\\n      --network=none")
        .contains("mmdebstrap --mode=root --variant=minbase");

    String base = Files.readString(BASE_DOCKERFILE);
    Matcher release = Pattern.compile("(?m)^ARG DEBIAN_ROOT=debian:([a-z]+)-slim$").matcher(base);
    assertThat(release.find()).as("images/base/Dockerfile names its Debian release").isTrue();
    assertThat(script)
        .as("the release is read from images/base/Dockerfile, not written twice")
        .doesNotContain(release.group(1));
    assertThat(base).containsPattern("(?m)^FROM \\$\\{DEBIAN_ROOT\\}$");

    String javaRelease = pomProperty("maven.compiler.release");
    assertThat(base)
        .as("the base's JRE runs what Maven compiles (release %s)", javaRelease)
        .contains("openjdk-" + javaRelease + "-jre-headless");
  }

  /** The tag the script builds by default is the one the kustomization deploys. */
  @Test
  void scriptBuildsTheTagTheManifestsUse() throws IOException {
    String kustomization = Files.readString(ROOT.resolve("manifests/kustomization.yaml"));
    Set<String> tags =
        Pattern.compile("(?m)^\\s+newTag: (\\S+)$")
            .matcher(kustomization)
            .results()
            .map(r -> r.group(1))
            .collect(Collectors.toSet());
    assertThat(tags).hasSize(1);
    assertThat(Files.readString(SCRIPT))
        .containsPattern("(?m)^tag=" + tags.iterator().next() + "$");
  }

  /**
   * Where the module was packaged already, the image would start: every Class-Path entry exists.
   */
  @ParameterizedTest
  @ValueSource(strings = {"operator", "dataplane", "sample-replica"})
  void packagedJarFindsItsClassPathInTargetLib(String module) throws IOException {
    Path target = ROOT.resolve(module).resolve("target");
    Path jar = target.resolve("replicapool-" + module + ".jar");
    Assumptions.assumeTrue(
        Files.isRegularFile(jar), () -> jar + " not built (mvn package -pl " + module + ")");
    try (JarFile j = new JarFile(jar.toFile())) {
      Manifest manifest = j.getManifest();
      assertThat(manifest.getMainAttributes().getValue("Main-Class")).isNotBlank();
      List<String> classPath =
          Arrays.asList(manifest.getMainAttributes().getValue("Class-Path").trim().split("\\s+"));
      assertThat(classPath).isNotEmpty().allMatch(e -> e.startsWith("lib/"));
      assertThat(classPath)
          .as("Class-Path entries present in %s/target/lib", module)
          .allMatch(e -> Files.isRegularFile(target.resolve(e)));
    }
  }

  private static String pomProperty(String name) throws IOException {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertThat(m.find()).as("pom.xml sets %s", name).isTrue();
    return m.group(1);
  }
}
