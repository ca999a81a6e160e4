package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A member given by address. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StaticEndpoint {
  /** A DNS name or an IPv4 address; IPv6 literals are not accepted in v1alpha1. */
  public static final String HOST_PATTERN =
      "^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$";

  @JsonPropertyDescription("DNS name or IPv4 address of the member. Required.")
  @Required
  @Size(min = 1, max = 253)
  @Pattern(HOST_PATTERN)
  public String host;

  @JsonPropertyDescription(
      "Port of the member. Default: spec.port (left unset in the stored pool, so that a change"
          + " of spec.port moves it too). A TCP port number.")
  @Min(1)
  @Max(65535)
  public Integer port;

  @JsonPropertyDescription(
      "Drains the member: no new requests, those in flight finish; it stays in the pool, shown"
          + " Draining, until set back to false. Default false.")
  public Boolean drain;

  public StaticEndpoint() {}

  public StaticEndpoint(String host, Integer port) {
    this.host = host;
    this.port = port;
  }
}
