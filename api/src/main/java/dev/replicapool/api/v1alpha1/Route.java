package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** How requests reach a pool on the data plane. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Route {
  public static final String HOSTNAME_PATTERN =
      "^(\\*\\.)?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$";

  @JsonPropertyDescription(
      "Host header values (lower-case DNS names, optionally starting with '*.') that select this"
          + " pool on the data plane's shared traffic port. Default: none.")
  @Size(max = 32)
  public List<@Pattern(HOSTNAME_PATTERN) String> hosts;

  @JsonPropertyDescription(
      "A dedicated data-plane port for this pool: every request arriving there goes to it."
          + " Default: none. A TCP port number.")
  @Min(1024)
  @Max(65535)
  public Integer port;
}
