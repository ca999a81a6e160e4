package dev.replicapool.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in leader election (JOSDK's, on the Lease {@value
 * OperatorConfig#LEADER_LEASE_NAME}): whether it leads, what happens when it gains or loses the
 * lead, and handing the Lease back on close. Without a leader-election namespace it always leads.
 */
final class LeaderElection {
  private static final Logger log = LoggerFactory.getLogger(ReplicaPoolOperator.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String identity;
  private final boolean exitOnLostLead;
  private final AtomicBoolean leader;
  private final AtomicBoolean closing = new AtomicBoolean();

  LeaderElection(KubernetesClient client, OperatorConfig config) {
    this.client = client;
    this.namespace = config.leaderElectionNamespace();
    this.identity = identity(config);
    this.exitOnLostLead = config.exitOnLostLead();
    this.leader = new AtomicBoolean(namespace == null);
  }

  /** JOSDK's default identity, made explicit so that close() can release the Lease it holds. */
  private static String identity(OperatorConfig config) {
    return config.leaderIdentity() != null
        ? config.leaderIdentity()
        : System.getenv("HOSTNAME") != null && !System.getenv("HOSTNAME").isBlank()
            ? System.getenv("HOSTNAME")
            : UUID.randomUUID().toString();
  }

  boolean enabled() {
    return namespace != null;
  }

  /** Whether this replica leads now; read by the admin port's readiness. */
  AtomicBoolean leads() {
    return leader;
  }

  /** JOSDK's election settings; {@code onLead} runs each time this replica begins to lead. */
  LeaderElectionConfiguration configuration(Runnable onLead) {
    return new LeaderElectionConfiguration(
        OperatorConfig.LEADER_LEASE_NAME,
        namespace,
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2),
        identity,
        new LeaderCallbacks(
            () -> {
              log.info("this replica leads");
              leader.set(true);
              onLead.run();
            },
            this::lostLead,
            newLeader -> log.info("leader is {}", newLeader)),
        // Not JOSDK's exit: it would also fire on close(), where the lead is released on purpose,
        // and System.exit from a shutdown hook (SIGTERM) blocks for ever. lostLead exits only when
        // the lead is lost while running.
        false);
  }

  /**
   * The lead was lost. On close (the lead released on purpose) nothing more happens; while running,
   * another replica may already reconcile, so the process ends (as JOSDK's own exit-on-stop-leading
   * does) unless configured otherwise. The exit runs on a thread of its own: this callback holds
   * the leader elector's monitor, which the shutdown hooks need.
   */
  private void lostLead() {
    leader.set(false);
    if (closing.get()) {
      log.info("this replica released the lead");
      return;
    }
    if (exitOnLostLead) {
      log.error("this replica lost the lead while running: exiting");
      Thread t = new Thread(() -> System.exit(1), "operator-lost-lead-exit");
      t.setDaemon(false);
      t.start();
    } else {
      log.warn("this replica lost the lead");
    }
  }

  /** The process is closing: losing the lead from now on is on purpose. Returns whether it led. */
  boolean closing() {
    closing.set(true);
    return leader.get();
  }

  /**
   * Hands the leader Lease back once this replica stopped reconciling, as client-go's
   * ReleaseOnCancel does (JOSDK 5.2 leaves it to expire): the follower then takes over at its next
   * retry (2 s) instead of after the lease duration (15 s). Only if this replica still holds it;
   * the resourceVersion guards against a concurrent change.
   */
  void release() {
    try {
      Lease lease =
          client.leases().inNamespace(namespace).withName(OperatorConfig.LEADER_LEASE_NAME).get();
      if (lease == null
          || lease.getSpec() == null
          || !identity.equals(lease.getSpec().getHolderIdentity())) {
        return;
      }
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      lease.getSpec().setHolderIdentity(null);
      lease.getSpec().setLeaseDurationSeconds(1);
      lease.getSpec().setAcquireTime(now);
      lease.getSpec().setRenewTime(now);
      client.leases().inNamespace(namespace).resource(lease).update();
      log.info("released the leader Lease {}/{}", namespace, lease.getMetadata().getName());
    } catch (RuntimeException e) {
      log.warn("could not release the leader Lease: {}", e.getMessage());
    }
  }
}
