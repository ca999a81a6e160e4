package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes Kubernetes Events about a pool, rate-limited per pool so that a flapping member cannot
 * flood the API server: a token bucket of {@code burst} events refilled at one per {@code
 * refillMillis}. Failures to write an Event are logged, never thrown.
 */
public final class EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final String COMPONENT = "replicapool-operator";
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final LongSupplier clock;
  private final int burst;
  private final long refillMillis;
  private final Map<String, double[]> buckets = new ConcurrentHashMap<>();

  public EventRecorder(KubernetesClient client, LongSupplier clock, int burst, long refillMillis) {
    this.client = client;
    this.clock = clock;
    this.burst = burst;
    this.refillMillis = refillMillis;
  }

  public void normal(ReplicaPool pool, String reason, String message) {
    record(pool, "Normal", reason, message);
  }

  public void warning(ReplicaPool pool, String reason, String message) {
    record(pool, "Warning", reason, message);
  }

  /**
   * An Event rate-limited apart from the pool's member Events, for the rare pool-wide news that a
   * burst of member transitions must not crowd out (entering and leaving panic routing).
   */
  public void poolWide(ReplicaPool pool, boolean warning, String reason, String message) {
    record(pool, warning ? "Warning" : "Normal", reason, message, "#pool");
  }

  private void record(ReplicaPool pool, String type, String reason, String message) {
    record(pool, type, reason, message, "");
  }

  private void record(
      ReplicaPool pool, String type, String reason, String message, String bucketSuffix) {
    String key = pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
    if (!take(key + bucketSuffix)) {
      log.debug("event rate limit for {}: dropped {} {}", key, reason, message);
      return;
    }
    var event = event(pool, type, reason, message, Instant.ofEpochMilli(clock.getAsLong()));
    try {
      client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
    } catch (RuntimeException e) {
      log.warn("could not record event {} for {}: {}", reason, key, e.getMessage());
    }
  }

  private static Event event(
      ReplicaPool pool, String type, String reason, String message, Instant at) {
    // metav1.Time has second precision, metav1.MicroTime exactly six fractional digits.
    String now = DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.SECONDS));
    String micro = MICRO_TIME.format(at);
    return new EventBuilder()
        .withNewMetadata()
        .withName(
            pool.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 13))
        .withNamespace(pool.getMetadata().getNamespace())
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(pool.getApiVersion())
        .withKind(pool.getKind())
        .withName(pool.getMetadata().getName())
        .withNamespace(pool.getMetadata().getNamespace())
        .withUid(pool.getMetadata().getUid())
        .withResourceVersion(pool.getMetadata().getResourceVersion())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(message.length() > 1024 ? message.substring(0, 1024) : message)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withEventTime(new MicroTime(micro))
        .withCount(1)
        .withAction(reason)
        .withReportingComponent(COMPONENT)
        .withReportingInstance(COMPONENT)
        .withNewSource()
        .withComponent(COMPONENT)
        .endSource()
        .build();
  }

  private boolean take(String key) {
    long now = clock.getAsLong();
    double[] bucket = buckets.computeIfAbsent(key, k -> new double[] {burst, now});
    synchronized (bucket) {
      double tokens = Math.min(burst, bucket[0] + (now - bucket[1]) / (double) refillMillis);
      bucket[1] = now;
      if (tokens < 1) {
        bucket[0] = tokens;
        return false;
      }
      bucket[0] = tokens - 1;
      return true;
    }
  }
}
