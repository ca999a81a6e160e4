package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The committed CRD must be exactly what fabric8's generator makes of the API types, with the
 * printer columns in the order a user reads them. Regenerate with {@code scripts/update-crds.sh}.
 */
class CrdInSyncTest {
  static final String CRD_FILE = "replicapools.replicapool.dev-v1.yml";

  /** kubectl shows columns in CRD order; the generator sorts them by name. */
  static final List<String> COLUMN_ORDER =
      List.of("Ready", "Registered", "Routable", "Degraded", "Policy", "Age");

  @Test
  void committedCrdMatchesTheJavaTypes() throws IOException {
    String expected = withColumnOrder(generated(), COLUMN_ORDER);
    Path committed = Path.of(CRD_FILE);
    if (Boolean.getBoolean("crds.update")) {
      Files.writeString(committed, expected);
    }
    assertThat(Files.readString(committed))
        .as("crds/%s is out of date with api/: run scripts/update-crds.sh", CRD_FILE)
        .isEqualTo(expected);
  }

  @Test
  void columnReorderingKeepsEveryLine() throws IOException {
    String generated = generated();
    String reordered = withColumnOrder(generated, COLUMN_ORDER);
    assertThat(reordered.lines().sorted().toList()).isEqualTo(generated.lines().sorted().toList());
    assertThat(reordered.indexOf("name: \"Ready\"")).isLessThan(reordered.indexOf("name: \"Age\""));
  }

  static String generated() throws IOException {
    try (InputStream in =
        CrdInSyncTest.class.getClassLoader().getResourceAsStream("META-INF/fabric8/" + CRD_FILE)) {
      assertThat(in).as("generated CRD on the classpath (from the api module)").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Reorders the items of every additionalPrinterColumns list. Each item starts with "- jsonPath:"
   * at the list's indentation and ends where the next item or the list ends.
   */
  static String withColumnOrder(String yaml, List<String> order) {
    List<String> lines = yaml.lines().toList();
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String line = lines.get(i);
      out.add(line);
      i++;
      if (!line.trim().equals("- additionalPrinterColumns:")) {
        continue;
      }
      String itemPrefix = line.substring(0, line.indexOf('-')) + "  - ";
      List<List<String>> items = new ArrayList<>();
      while (i < lines.size() && lines.get(i).startsWith(itemPrefix)) {
        List<String> item = new ArrayList<>();
        item.add(lines.get(i++));
        while (i < lines.size()
            && lines.get(i).startsWith(" ".repeat(itemPrefix.length()))
            && !lines.get(i).startsWith(itemPrefix)) {
          item.add(lines.get(i++));
        }
        items.add(item);
      }
      items.sort((a, b) -> Integer.compare(rank(a, order), rank(b, order)));
      items.forEach(out::addAll);
    }
    return String.join("\n", out) + "\n";
  }

  private static int rank(List<String> item, List<String> order) {
    for (String line : item) {
      String t = line.trim();
      if (t.startsWith("name: ")) {
        int at = order.indexOf(t.substring(6).replace("\"", ""));
        return at < 0 ? order.size() : at;
      }
    }
    return order.size();
  }
}
