package dev.replicapool.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The local run's flags that are more than a port. */
class LocalRunMainTest {
  @Test
  void theOperatorWatchesEveryNamespaceUnlessTheFlagNamesSome() {
    assertThat(LocalRunMain.operatorNamespaces(Map.of())).isEmpty();
    assertThat(LocalRunMain.operatorNamespaces(Map.of("operator-namespaces", " default, bench,, ")))
        .containsExactlyInAnyOrder("default", "bench");
  }
}
