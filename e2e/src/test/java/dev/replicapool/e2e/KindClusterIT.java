package dev.replicapool.e2e;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ClusterE2e} on a kind cluster made with the kind CLI and the node image built here
 * (scripts/build-kind-node-image.sh). Left out of a plain {@code mvn verify} (the e2e module's
 * failsafe excludes it: it needs Docker, root and some minutes); scripts/test.sh provisions Docker,
 * kind and the node image and runs it with {@code -Dit.test=KindClusterIT} after {@link
 * LocalClusterE2E} (docs/INSTALL.md). Asked for, it fails rather than skips when a part is missing.
 */
class KindClusterIT extends ClusterE2e {
  @BeforeAll
  static void startKind() throws Exception {
    use(KindCluster.start());
  }
}
