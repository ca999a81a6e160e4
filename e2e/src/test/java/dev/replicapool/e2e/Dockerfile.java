package dev.replicapool.e2e;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a Dockerfile sets in the image config, read from its instructions (one per line, as the
 * project's Dockerfiles write ENTRYPOINT, USER, WORKDIR and EXPOSE): what an image built from it,
 * by Docker or buildah, must carry (ImagesTest).
 */
record Dockerfile(List<String> entrypoint, String user, String workdir, Set<String> exposedPorts) {

  static Dockerfile read(Path file) throws IOException {
    List<String> entrypoint = List.of();
    String user = "";
    String workdir = "";
    Set<String> ports = new TreeSet<>();
    for (String line : Files.readAllLines(file)) {
      String[] instruction = line.strip().split("\\s+", 2);
      if (instruction.length < 2) {
        continue;
      }
      String value = instruction[1];
      switch (instruction[0]) {
        case "ENTRYPOINT" ->
            entrypoint = new ObjectMapper().readValue(value, new TypeReference<>() {});
        case "USER" -> user = value;
        case "WORKDIR" -> workdir = value;
        case "EXPOSE" -> {
          for (String port : value.split("\\s+")) {
            ports.add(port.contains("/") ? port : port + "/tcp");
          }
        }
        default -> {}
      }
    }
    return new Dockerfile(new ArrayList<>(entrypoint), user, workdir, ports);
  }
}
