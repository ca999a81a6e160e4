package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** What a ConsistentHash pool hashes, and how: the same key goes to the same member. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(has(self.header) ? 1 : 0) + (has(self.cookie) ? 1 : 0)"
            + " + (has(self.sourceIP) && self.sourceIP ? 1 : 0) == 1",
    message = "exactly one of header, cookie or sourceIP: true says what the hash key is",
    reason = "FieldValueInvalid")
public class ConsistentHash {
  /** How keys are laid out over the members. */
  public enum Algorithm {
    Maglev,
    RingHash
  }

  @JsonPropertyDescription(
      "Hash the value of this request header (the first one, if sent more than once). A request"
          + " without the header is balanced as RoundRobin would. Default: none.")
  @Size(min = 1, max = 256)
  @Pattern("^[-!#$%&'*+.^_`|~0-9A-Za-z]+$")
  public String header;

  @JsonPropertyDescription(
      "Hash the value of this cookie. A request without it gets a new value (and a Set-Cookie"
          + " with it on the response) when ttlSeconds is set; without ttlSeconds it is balanced"
          + " as RoundRobin would. Default: none.")
  public HashCookie cookie;

  @JsonPropertyDescription(
      "Hash the client's IP address as the data plane sees it (the connection's peer, not"
          + " X-Forwarded-For). Default false.")
  @Default("false")
  @JsonProperty("sourceIP")
  public Boolean sourceIP = false;

  @JsonPropertyDescription(
      "Maglev: a lookup table of 65,537 entries, even shares, little remapping when members"
          + " change. RingHash: a hash ring with 4,096 points per member of weight 1, the classic alternative. Either way"
          + " every data plane puts the same key on the same member. Default Maglev.")
  @Default("Maglev")
  public Algorithm algorithm = Algorithm.Maglev;
}
