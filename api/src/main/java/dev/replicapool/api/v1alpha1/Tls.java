package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** TLS termination on the data plane. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Tls {
  @JsonPropertyDescription(
      "Name of a kubernetes.io/tls Secret (tls.crt, tls.key) in the pool's namespace. Changes"
          + " to the Secret are applied live. Required.")
  @Required
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
  public String secretName;
}
