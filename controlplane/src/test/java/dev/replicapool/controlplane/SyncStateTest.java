package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What status is told when the latest spec does not run on every data plane. */
class SyncStateTest {
  @Test
  void appliedEverywhereHasNoReason() {
    SyncState s = new SyncState(2, 2, 41, List.of());
    assertThat(s.notApplied()).isZero();
    assertThat(s.notAppliedReason()).isNull();
  }

  @Test
  void noDataPlaneHasNoReasonEither() {
    assertThat(new SyncState(0, 0, 41, List.of()).notAppliedReason()).isNull();
  }

  @Test
  void notYetAnsweredSaysSo() {
    SyncState s = new SyncState(2, 1, 41, List.of());
    assertThat(s.notApplied()).isEqualTo(1);
    assertThat(s.notAppliedReason()).isEqualTo("version 41 not applied on 1 of 2 data planes yet");
  }

  @Test
  void aRejectionSaysWhyAndThatItIsRetried() {
    SyncState s =
        new SyncState(
            2,
            0,
            41,
            List.of(
                "dp-a: version 41: host h is already routed to pool ns/x", "dp-b: version 41: x"));
    assertThat(s.notApplied()).isEqualTo(2);
    assertThat(s.notAppliedReason())
        .isEqualTo(
            "version 41 not applied on 2 of 2 data planes, because: dp-a: version 41: host h is"
                + " already routed to pool ns/x; dp-b: version 41: x (retried until it applies)");
  }
}
