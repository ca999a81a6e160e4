package dev.replicapool.e2e;

import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@link ClusterE2e} on a kind node in Docker. Skipped without Docker ({@code
 * disabledWithoutDocker}), and skipped with a message when the images are missing: build them first
 * with {@code scripts/build-images.sh} (docs/INSTALL.md). Without Docker, {@link LocalClusterE2E}
 * runs the same test on scripts/local-cluster.sh.
 */
@Testcontainers(disabledWithoutDocker = true)
class KindClusterIT extends ClusterE2e {
  @BeforeAll
  static void startKind() throws Exception {
    use(KindCluster.start());
  }
}
