package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl explain} shows descriptions, not the schema's defaults: so every field of the spec
 * says its default (or that it is required) in its description, and a schema default and the
 * description agree.
 */
class CrdDefaultsDescribedTest {
  static final java.util.regex.Pattern STATED_DEFAULT =
      java.util.regex.Pattern.compile("Default (\\S+?)[.)]?(?:\\s|$)");

  static JSONSchemaProps specSchema() throws IOException {
    CustomResourceDefinition crd =
        new KubernetesSerialization()
            .unmarshal(
                Files.readString(Path.of(CrdInSyncTest.CRD_FILE)), CustomResourceDefinition.class);
    return crd.getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema()
        .getProperties()
        .get("spec");
  }

  /** Every property under spec, as path and schema, including those of list items. */
  static void walk(String path, JSONSchemaProps schema, Map<String, JSONSchemaProps> out) {
    if (schema.getProperties() != null) {
      schema
          .getProperties()
          .forEach(
              (name, child) -> {
                out.put(path + "." + name, child);
                walk(path + "." + name, child, out);
              });
    }
    if (schema.getItems() != null && schema.getItems().getSchema() != null) {
      walk(path + "[]", schema.getItems().getSchema(), out);
    }
  }

  static Map<String, JSONSchemaProps> specFields() throws IOException {
    Map<String, JSONSchemaProps> fields = new java.util.TreeMap<>();
    walk("spec", specSchema(), fields);
    // The label selector is Kubernetes' own type, described by Kubernetes.
    fields.keySet().removeIf(k -> k.startsWith("spec.selector."));
    return fields;
  }

  @Test
  void everySpecFieldStatesItsDefaultOrThatItIsRequired() throws IOException {
    List<String> silent = new ArrayList<>();
    specFields()
        .forEach(
            (path, schema) -> {
              String d = schema.getDescription() == null ? "" : schema.getDescription();
              if (!d.contains("Default") && !d.contains("Required")) {
                silent.add(path);
              }
            });
    assertThat(silent).as("fields whose description states no default").isEmpty();
  }

  @Test
  void aScalarSchemaDefaultIsTheOneTheDescriptionStates() throws IOException {
    List<String> disagree = new ArrayList<>();
    specFields()
        .forEach(
            (path, schema) -> {
              if (schema.getDefault() == null || !schema.getDefault().isValueNode()) {
                return;
              }
              String value = schema.getDefault().asText();
              Matcher m = STATED_DEFAULT.matcher(schema.getDescription());
              boolean stated = false;
              while (m.find()) {
                stated |= m.group(1).equals(value);
              }
              if (!stated) {
                disagree.add(path + " (schema default " + value + ")");
              }
            });
    assertThat(disagree).as("descriptions that do not state the schema's default").isEmpty();
  }
}
