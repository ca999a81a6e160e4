package dev.replicapool.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * An image as scripts/build-images.sh --oci writes it: a docker-archive tar (manifest.json, the
 * config JSON, one uncompressed tar per layer), the format `ctr images import` reads. Read in one
 * pass, keeping the config, the paths of the merged file system, and /app/app.jar's Class-Path.
 */
record ImageTar(
    List<String> repoTags,
    List<String> entrypoint,
    String user,
    String workingDir,
    Set<String> exposedPorts,
    String path,
    Set<String> files,
    List<String> classPath) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String APP_JAR = "app/app.jar";

  static ImageTar read(Path tar) throws IOException {
    Map<String, byte[]> json = new HashMap<>();
    Map<String, Layer> layers = new HashMap<>();
    try (TarArchiveInputStream outer = new TarArchiveInputStream(Files.newInputStream(tar))) {
      for (TarArchiveEntry e = outer.getNextTarEntry(); e != null; e = outer.getNextTarEntry()) {
        if (!e.isFile()) {
          continue;
        }
        if (e.getName().endsWith(".tar")) {
          layers.put(e.getName(), Layer.read(outer));
        } else if (e.getName().endsWith(".json")) {
          json.put(e.getName(), outer.readAllBytes());
        }
      }
    }
    JsonNode manifest = JSON.readTree(json.get("manifest.json")).get(0);
    JsonNode config = JSON.readTree(json.get(manifest.get("Config").asText())).get("config");
    Set<String> files = new TreeSet<>();
    byte[] appJar = null;
    for (JsonNode name : manifest.get("Layers")) {
      Layer layer = layers.get(name.asText());
      files.removeIf(
          f -> layer.whiteouts().stream().anyMatch(w -> f.equals(w) || f.startsWith(w + "/")));
      files.addAll(layer.files());
      appJar = layer.appJar() != null ? layer.appJar() : appJar;
    }
    return new ImageTar(
        strings(manifest.get("RepoTags")),
        strings(config.get("Entrypoint")),
        config.path("User").asText(""),
        config.path("WorkingDir").asText(""),
        exposedPorts(config.path("ExposedPorts")),
        strings(config.get("Env")).stream()
            .filter(v -> v.startsWith("PATH="))
            .findFirst()
            .orElse(""),
        files,
        appJar == null ? List.of() : classPath(appJar));
  }

  /** One layer: the paths it adds (files and links), the ones it deletes, and app.jar if there. */
  private record Layer(Set<String> files, Set<String> whiteouts, byte[] appJar) {
    static Layer read(InputStream in) throws IOException {
      Set<String> files = new LinkedHashSet<>();
      Set<String> whiteouts = new LinkedHashSet<>();
      byte[] appJar = null;
      // Not closed: closing would close the outer archive this layer is an entry of.
      TarArchiveInputStream tar = new TarArchiveInputStream(in);
      for (TarArchiveEntry e = tar.getNextTarEntry(); e != null; e = tar.getNextTarEntry()) {
        String name = e.getName().replaceFirst("^\\./", "").replaceFirst("^/", "");
        String base = name.substring(name.lastIndexOf('/') + 1);
        String dir = name.substring(0, name.length() - base.length());
        if (base.equals(".wh..wh..opq")) {
          whiteouts.add(dir.replaceFirst("/$", "")); // an opaque directory hides all below it
        } else if (base.startsWith(".wh.")) {
          whiteouts.add(dir + base.substring(4));
        } else if (!e.isDirectory()) {
          files.add(name);
          if (name.equals(APP_JAR) && e.isFile()) {
            appJar = tar.readAllBytes();
          }
        }
      }
      return new Layer(files, whiteouts, appJar);
    }
  }

  private static List<String> classPath(byte[] jar) throws IOException {
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
      Manifest manifest = in.getManifest();
      String classPath =
          manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
      return classPath == null ? List.of() : Arrays.asList(classPath.trim().split("\\s+"));
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null) {
      array.forEach(n -> out.add(n.asText()));
    }
    return out;
  }

  private static Set<String> exposedPorts(JsonNode ports) {
    Set<String> out = new TreeSet<>();
    ports.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
