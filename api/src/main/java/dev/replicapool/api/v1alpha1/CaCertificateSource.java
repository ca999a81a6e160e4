package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Where a CA bundle lives: one key of a ConfigMap or of a Secret in the pool's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.configMapName) != has(self.secretName)",
    message = "exactly one of configMapName or secretName names the CA",
    reason = "FieldValueInvalid")
public class CaCertificateSource {
  @JsonPropertyDescription(
      "Name of a ConfigMap in the pool's namespace holding the CA bundle. Default: none"
          + " (exactly one of configMapName and secretName is required).")
  @Size(max = 253)
  @Pattern(UpstreamTls.DNS_NAME)
  public String configMapName;

  @JsonPropertyDescription(
      "Name of a Secret of type kubernetes.io/tls in the pool's namespace holding the CA bundle"
          + " (as cert-manager writes ca.crt). The operator reads no other type of Secret; a CA"
          + " kept elsewhere goes into a ConfigMap, since a CA certificate is not secret. Default:"
          + " none (exactly one of configMapName and secretName is required).")
  @Size(max = 253)
  @Pattern(UpstreamTls.DNS_NAME)
  public String secretName;

  @JsonPropertyDescription("Key of the PEM CA bundle in the ConfigMap or Secret. Default ca.crt.")
  @Default("ca.crt")
  @Size(max = 253)
  @Pattern("^[-._a-zA-Z0-9]+$")
  public String key = "ca.crt";
}
