package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Which of this pool's requests the data plane writes to its access log. The data plane's {@code
 * --access-log} flag chooses where and how (off by default); this chooses which requests.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AccessLog {
  @JsonPropertyDescription(
      "Log this pool's requests on data planes whose --access-log flag is set (a data plane"
          + " started with --access-log-pools all logs every pool anyway). Default false.")
  public Boolean enabled;

  @JsonPropertyDescription(
      "Share of requests logged, 0 to 1, drawn per request when it starts. Default 1.")
  @Min(0)
  @Max(1)
  public Double sampleRate;

  @JsonPropertyDescription(
      "Log only failed requests: status 500 or above, or answered by the data plane itself"
          + " (a response flag set). Default false.")
  public Boolean errorsOnly;
}
