package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No image can be built here, so the Dockerfiles are held to what Maven produces: the jar they copy
 * is the one the module's pom names, its manifest's Class-Path is what target/lib holds, the user
 * is the non-root UID the manifests run as, and build-images.sh builds the names the manifests use.
 */
class ImagesTest {
  static final Path ROOT = RenderedManifests.repoRoot();

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

    String script = Files.readString(ROOT.resolve("scripts").resolve("build-images.sh"));
    assertThat(script).contains(module).contains("replicapool/$m:$tag");
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
}
