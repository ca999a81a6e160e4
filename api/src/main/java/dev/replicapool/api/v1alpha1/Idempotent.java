package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * What this pool's members may safely receive twice: the one list the data plane's retries and
 * hedges both consult. A request that may have reached a member is sent again only when it is named
 * here (or is GET, HEAD or OPTIONS).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.methods) || self.methods.all(m, m.matches('^[A-Z]+$'))",
    message =
        "methods must be upper-case HTTP method tokens such as PUT or DELETE: methods are"
            + " case-sensitive, so put would never match a PUT request",
    fieldPath = ".methods",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.grpcMethods) || self.grpcMethods.all(m,"
            + " m.matches('^/[A-Za-z_][A-Za-z0-9_.]*/([A-Za-z_][A-Za-z0-9_]*|[*])$'))",
    message =
        "grpcMethods must be /package.Service/Method or /package.Service/* (every method of the"
            + " service)",
    fieldPath = ".grpcMethods",
    reason = "FieldValueInvalid")
public class Idempotent {
  @JsonPropertyDescription(
      "HTTP methods besides GET, HEAD and OPTIONS (always idempotent) that this pool's members"
          + " may receive twice, upper case, for example PUT or DELETE. Default: none. A request"
          + " of such a method that may have reached a member is sent again to another member"
          + " (after a reset or a per-try timeout, within the retry budget) byte for byte, body"
          + " included when the data plane kept it, and may be hedged; the union with"
          + " hedging.idempotentMethods is used.")
  @Size(max = 32)
  public List<@Size(max = 32) String> methods;

  @JsonPropertyDescription(
      "gRPC methods this pool's members may receive twice: /package.Service/Method, or"
          + " /package.Service/* for every method of the service. Default: none: a gRPC call"
          + " that may have reached a member is never sent again (it gets UNAVAILABLE); one that"
          + " provably reached none (refused stream, connect failure) may go to another member"
          + " whatever this list says.")
  @Size(max = 64)
  public List<@Size(max = 256) String> grpcMethods;
}
