package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** The cookie a ConsistentHash pool hashes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HashCookie {
  @JsonPropertyDescription("Name of the cookie whose value is the hash key. Required.")
  @Required
  @Size(min = 1, max = 256)
  @Pattern("^[-!#$%&'*+.^_`|~0-9A-Za-z]+$")
  public String name;

  @JsonPropertyDescription(
      "When set, a request without the cookie gets a new random value, hashed at once, and the"
          + " response carries Set-Cookie: NAME=VALUE; Max-Age=ttlSeconds; Path=/; HttpOnly, so"
          + " the client's next requests go to the same member. Default: none (no cookie is ever set)."
          + " Seconds.")
  @Min(1)
  @Max(315_360_000)
  public Long ttlSeconds;
}
