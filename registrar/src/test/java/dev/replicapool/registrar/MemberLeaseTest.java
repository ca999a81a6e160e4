package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.replicapool.api.registration.LeaseConventions;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberLeaseTest {
  private static final Instant NOW = Instant.parse("2025-03-04T05:06:07.123456789Z");
  private final MemberLease member =
      new MemberLease("shop", "tracking", "K1", "10.0.0.7:8080", 900);

  @Test
  void leaseFollowsTheConventions() {
    Lease lease = lease(member, true, false);

    assertThat(lease.getMetadata().getName()).isEqualTo("tracking-k1");
    assertThat(lease.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(lease.getMetadata().getLabels())
        .containsExactly(Map.entry(LeaseConventions.POOL_LABEL, "tracking"));
    assertThat(lease.getMetadata().getAnnotations())
        .containsOnly(
            Map.entry(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.7:8080"),
            Map.entry(LeaseConventions.HEALTHY_ANNOTATION, "true"));
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("K1");
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
    assertThat(lease.getSpec().getAcquireTime().toInstant())
        .isEqualTo(Instant.parse("2025-03-04T05:06:07.123456Z"));
    assertThat(lease.getSpec().getRenewTime()).isEqualTo(lease.getSpec().getAcquireTime());
    assertThat(lease(member, false, false).getMetadata().getAnnotations())
        .containsEntry(LeaseConventions.HEALTHY_ANNOTATION, "false");
  }

  @Test
  void leaseSerializesTimesAsMicroTime() throws Exception {
    String json = member.creationJson(true, false, NOW);
    JsonNode spec = new ObjectMapper().readTree(json).get("spec");

    assertThat(spec.get("renewTime").asText()).isEqualTo("2025-03-04T05:06:07.123456Z");
    assertThat(spec.get("acquireTime").asText()).isEqualTo("2025-03-04T05:06:07.123456Z");
  }

  @Test
  void leaseDurationIsRoundedUpToWholeSecondsAndAtLeastOne() {
    assertThat(withLease(1).leaseDurationSeconds()).isEqualTo(1);
    assertThat(withLease(900).leaseDurationSeconds()).isEqualTo(1);
    assertThat(withLease(1000).leaseDurationSeconds()).isEqualTo(1);
    assertThat(withLease(1001).leaseDurationSeconds()).isEqualTo(2);
    assertThat(withLease(15_000).leaseDurationSeconds()).isEqualTo(15);
  }

  @Test
  void renewalPatchCarriesRenewTimeHealthAndIdentityButNoAcquireTimeOrVersion() throws Exception {
    JsonNode patch = new ObjectMapper().readTree(member.renewalPatch(false, false, NOW));

    assertThat(patch.at("/spec/renewTime").asText()).isEqualTo("2025-03-04T05:06:07.123456Z");
    assertThat(patch.at("/spec/holderIdentity").asText()).isEqualTo("K1");
    assertThat(patch.at("/spec/leaseDurationSeconds").asInt()).isEqualTo(1);
    assertThat(patch.at("/metadata/annotations").get(LeaseConventions.HEALTHY_ANNOTATION).asText())
        .isEqualTo("false");
    assertThat(patch.at("/metadata/annotations").get(LeaseConventions.ADDRESS_ANNOTATION).asText())
        .isEqualTo("10.0.0.7:8080");
    assertThat(patch.at("/metadata/labels").get(LeaseConventions.POOL_LABEL).asText())
        .isEqualTo("tracking");
    assertThat(patch.at("/spec/acquireTime").isMissingNode()).isTrue();
    assertThat(patch.at("/metadata/resourceVersion").isMissingNode()).isTrue();
    assertThat(patch.at("/spec").size()).isEqualTo(3);
  }

  @Test
  void microTimeHasSixFractionalDigitsInUtc() {
    assertThat(MemberLease.microTime(Instant.parse("2025-01-01T00:00:00Z")))
        .isEqualTo("2025-01-01T00:00:00.000000Z");
  }

  @Test
  void ipv6AddressesKeepTheirBrackets() {
    MemberLease v6 = new MemberLease("ns", "p", "r", "[fd00::7]:8080", 900);
    assertThat(lease(v6, true, false).getMetadata().getAnnotations())
        .containsEntry(LeaseConventions.ADDRESS_ANNOTATION, "[fd00::7]:8080");
  }

  @Test
  void rejectsWhatTheApiServerWouldReject() {
    assertThatThrownBy(() -> new MemberLease("", "p", "r", "h:1", 900))
        .hasMessageContaining("namespace must not be empty");
    assertThatThrownBy(() -> new MemberLease("ns", "p", "r", "h:1", 0))
        .hasMessageContaining("at least 1 ms");
    assertThatThrownBy(() -> new MemberLease("ns", "p".repeat(64), "r", "h:1", 900))
        .hasMessageContaining("cannot be a label value");
    assertThatThrownBy(() -> new MemberLease("ns", "p", "r-", "h:1", 900))
        .hasMessageContaining("'p-r-', which is not a valid object name");
  }

  /** The Lease the API server reads from {@link MemberLease#creationJson}. */
  private static Lease lease(MemberLease member, boolean healthy, boolean draining) {
    return new KubernetesSerialization()
        .unmarshal(member.creationJson(healthy, draining, NOW), Lease.class);
  }

  @Test
  void stringsAreEscapedAsJsonWants() throws Exception {
    assertThat(MemberLease.quote("a\"b\\c\u0001d\u00e9"))
        .isEqualTo("\"a\\\"b\\\\c\\u0001d\u00e9\"");
    assertThat(new ObjectMapper().readTree(MemberLease.quote("a\"b\\c\u0001\n")).asText())
        .isEqualTo("a\"b\\c\u0001\n");
  }

  private static MemberLease withLease(long millis) {
    return new MemberLease("ns", "p", "r", "h:1", millis);
  }

  @Test
  void aDrainingRenewalAndCreationCarryTheDrainAnnotationOthersLeaveItAlone() throws Exception {
    JsonNode draining = new ObjectMapper().readTree(member.renewalPatch(true, true, NOW));
    assertThat(draining.at("/metadata/annotations/replicapool.dev~1drain").asText())
        .isEqualTo("true");
    JsonNode plain = new ObjectMapper().readTree(member.renewalPatch(true, false, NOW));
    assertThat(plain.at("/metadata/annotations").has(LeaseConventions.DRAIN_ANNOTATION))
        .as("a merge patch that does not name it keeps a kubectl annotate")
        .isFalse();
    assertThat(lease(member, true, true).getMetadata().getAnnotations())
        .containsEntry(LeaseConventions.DRAIN_ANNOTATION, "true");
    assertThat(lease(member, true, false).getMetadata().getAnnotations())
        .doesNotContainKey(LeaseConventions.DRAIN_ANNOTATION);
  }
}
