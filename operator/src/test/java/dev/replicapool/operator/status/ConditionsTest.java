package dev.replicapool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  static final String T0 = "2026-12-01T12:00:00Z";
  static final String T1 = "2026-12-01T12:05:00Z";

  @Test
  void aConditionCarriesItsGenerationAndTime() {
    Condition c = Conditions.of(Conditions.READY, true, "EndpointsRoutable", "2 of 2", 7, T0);
    assertThat(c.getType()).isEqualTo("Ready");
    assertThat(c.getStatus()).isEqualTo("True");
    assertThat(c.getReason()).isEqualTo("EndpointsRoutable");
    assertThat(c.getMessage()).isEqualTo("2 of 2");
    assertThat(c.getObservedGeneration()).isEqualTo(7);
    assertThat(c.getLastTransitionTime()).isEqualTo(T0);
    assertThat(Conditions.of(Conditions.READY, false, "NoMembers", "", 7, T0).getStatus())
        .isEqualTo("False");
    assertThat(Conditions.unknown(Conditions.DATA_PLANE_SYNCED, "NoDataPlanes", "", 7, T0))
        .extracting(Condition::getStatus)
        .isEqualTo("Unknown");
  }

  @Test
  void onlyATransitionMovesTheTime() {
    List<Condition> old =
        List.of(
            Conditions.of(Conditions.READY, true, "EndpointsRoutable", "2 of 2", 1, T0),
            Conditions.of(Conditions.DEGRADED, false, "AllEndpointsHealthy", "", 1, T0));
    List<Condition> fresh =
        Conditions.carryTransitionTimes(
            old,
            List.of(
                Conditions.of(Conditions.READY, true, "EndpointsRoutable", "1 of 2", 2, T1),
                Conditions.of(Conditions.DEGRADED, true, "EndpointUnhealthy", "x", 2, T1),
                Conditions.of(Conditions.CONFIGURATION_VALID, true, "Valid", "", 2, T1)));
    assertThat(fresh).extracting(Condition::getLastTransitionTime).containsExactly(T0, T1, T1);
    assertThat(fresh.get(0).getMessage()).isEqualTo("1 of 2");
    assertThat(Conditions.carryTransitionTimes(List.of(), List.of())).isEmpty();
  }

  @Test
  void findByType() {
    Condition ready = Conditions.of(Conditions.READY, true, "EndpointsRoutable", "", 1, T0);
    assertThat(Conditions.find(List.of(ready), Conditions.READY)).isSameAs(ready);
    assertThat(Conditions.find(List.of(ready), Conditions.DEGRADED)).isNull();
    assertThat(Conditions.find(null, Conditions.READY)).isNull();
  }
}
