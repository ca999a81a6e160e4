package dev.replicapool.e2e;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ClusterE2e} on the one-node cluster of scripts/local-cluster.sh: no Docker, images from
 * target/images/. Not an {@code *IT}, so {@code mvn verify} leaves it out (it needs root and some
 * minutes); run it with {@code mvn -pl e2e -am verify -Dit.test=LocalClusterE2E} (docs/INSTALL.md).
 * It skips only when {@code scripts/local-cluster.sh check} finds that this machine cannot run the
 * cluster, and says what is missing.
 */
class LocalClusterE2E extends ClusterE2e {
  @BeforeAll
  static void startLocalCluster() throws Exception {
    use(LocalCluster.start());
  }
}
