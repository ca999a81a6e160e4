package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** TLS from the data plane and the prober to the members. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!(has(self.insecureSkipVerify) && self.insecureSkipVerify && has(self.ca))",
    message =
        "insecureSkipVerify trusts every certificate, so a ca to trust makes no sense with it",
    fieldPath = ".insecureSkipVerify",
    reason = "FieldValueForbidden")
public class UpstreamTls {
  public static final String DNS_NAME =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  @JsonPropertyDescription(
      "The CA certificates (PEM) that members' certificates must chain to. Without it the"
          + " operator's and data plane's default trust roots apply. Default: none.")
  public CaCertificateSource ca;

  @JsonPropertyDescription(
      "Server name sent as SNI and checked against the members' certificates. Default: each"
          + " member's host.")
  @Size(max = 253)
  @Pattern(DNS_NAME)
  public String serverName;

  @JsonPropertyDescription(
      "Name of a kubernetes.io/tls Secret (tls.crt, tls.key) in the pool's namespace whose"
          + " certificate is presented to the members: mutual TLS. Default: none (no client"
          + " certificate).")
  @Size(max = 253)
  @Pattern(DNS_NAME)
  public String clientCertificateSecretName;

  @JsonPropertyDescription(
      "Accept any certificate the members present, without checking chain or name. For tests"
          + " only: it gives up the protection TLS exists for. Default false.")
  @Default("false")
  public Boolean insecureSkipVerify = false;
}
