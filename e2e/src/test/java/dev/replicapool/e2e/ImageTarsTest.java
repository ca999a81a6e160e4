package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each image tar that scripts/build-images.sh --oci wrote is its Dockerfile built ({@link
 * ImagesTest} holds the Dockerfiles to the build). The tars exist only after the jars were tested
 * and packaged, so the build's own test run leaves this class out (e2e/pom.xml) and scripts/test.sh
 * runs it once they are built, where a missing tar fails it.
 */
class ImageTarsTest {
  /**
   * Where build-images.sh --oci has run, each tar is its Dockerfile built: the name containerd
   * imports it under, the entrypoint, user, working directory and ports, a java on the PATH, and
   * the jar's Class-Path inside the image.
   */
  @ParameterizedTest
  @ValueSource(strings = {"operator", "dataplane", "sample-replica"})
  void ociImageTarIsWhatItsDockerfileSays(String module) throws IOException {
    ImageTar image = builtImage(module);
    Dockerfile dockerfile = Dockerfile.read(ImagesTest.ROOT.resolve(module).resolve("Dockerfile"));
    String stale =
        "target/images/%s.tar against %s/Dockerfile (built before a change? build-images.sh --oci)"
            .formatted(module, module);
    assertThat(image.repoTags()).containsExactly("docker.io/replicapool/" + module + ":0.1.0");
    assertThat(image.entrypoint()).as(stale).isEqualTo(dockerfile.entrypoint());
    assertThat(image.user()).as(stale).isEqualTo(dockerfile.user());
    assertThat(image.workingDir()).as(stale).isEqualTo(dockerfile.workdir());
    assertThat(image.exposedPorts()).as(stale).isEqualTo(dockerfile.exposedPorts());
    assertThat(image.path()).contains("/usr/bin");
    assertThat(image.files()).contains("usr/bin/java", "app/app.jar");
    // A class-data archive the entrypoint names was written at build time (a missing one would
    // only cost start-up time, silently).
    dockerfile.entrypoint().stream()
        .filter(a -> a.startsWith("-XX:SharedArchiveFile=/"))
        .forEach(
            a ->
                assertThat(image.files())
                    .as(stale)
                    .contains(a.substring("-XX:SharedArchiveFile=/".length())));
    assertThat(image.classPath())
        .isNotEmpty()
        .allMatch(e -> image.files().contains("app/" + e), "is a file under /app in the image");
  }

  @Test
  void pauseImageTarIsWhatItsDockerfileSays() throws IOException {
    ImageTar image = builtImage("pause");
    Dockerfile dockerfile = Dockerfile.read(ImagesTest.ROOT.resolve("images/pause/Dockerfile"));
    assertThat(image.repoTags()).hasSize(1).allMatch(t -> t.contains("/pause:"));
    assertThat(image.entrypoint()).isEqualTo(dockerfile.entrypoint()).containsExactly("/pause");
    assertThat(image.user()).isEqualTo(dockerfile.user());
    assertThat(image.files()).containsExactly("pause");
  }

  private static ImageTar builtImage(String name) throws IOException {
    Path tar = ImagesTest.ROOT.resolve("target/images").resolve(name + ".tar");
    assertThat(tar).as("built by scripts/build-images.sh --oci").isRegularFile();
    return ImageTar.read(tar);
  }
}
