package dev.replicapool.operator.discovery;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.operator.readiness.RoutableGate;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides who the members of a pool are, from its three sources: Pods by selector, static endpoints
 * and Lease self-registration. Pure: the caller hands in what the informers cached.
 */
public final class MemberDiscovery {
  static final String ANNOTATION_DRAIN =
      "drained by annotation " + LeaseConventions.DRAIN_ANNOTATION;
  static final String STATIC_DRAIN = "drained by drain: true in spec.endpoints";

  private final LeaseExpiry expiry;

  public MemberDiscovery(LeaseExpiry expiry) {
    this.expiry = expiry;
  }

  /** What discovery found, and what it refused to use. */
  public record Result(List<Member> members, List<String> problems, int selectedPods) {}

  /**
   * The members of a pool now. A member address that appears in more than one source is kept once
   * (the first of Pod, Static, Lease wins) so that it is probed and weighted once.
   */
  public Result discover(
      ReplicaPool pool, Collection<Pod> podsInNamespace, Collection<Lease> poolLeases, long now) {
    ReplicaPoolSpec spec = pool.getSpec();
    Map<String, Member> byAddress = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    if (spec.selector != null) {
      problems.addAll(LabelSelectors.problems(spec.selector));
    }
    int selected = addPods(spec, podsInNamespace, byAddress);
    addStatic(spec, byAddress, problems);
    if (spec.registration != null) {
      long duration = spec.registration.leaseDurationMillis;
      for (Lease lease : poolLeases) {
        Member m = fromLease(lease, duration, now, problems);
        if (m != null) {
          byAddress.putIfAbsent(m.address(), m);
        }
      }
    }
    List<Member> members = new ArrayList<>(byAddress.values());
    members.sort(Comparator.comparing(Member::address));
    return new Result(members, problems, selected);
  }

  /** Adds the members among the selected Pods; returns how many Pods the selector matched. */
  private static int addPods(
      ReplicaPoolSpec spec, Collection<Pod> podsInNamespace, Map<String, Member> byAddress) {
    if (spec.selector == null || spec.port == null) {
      return 0;
    }
    int selected = 0;
    for (Pod pod : podsInNamespace) {
      if (!LabelSelectors.matches(spec.selector, pod.getMetadata().getLabels())) {
        continue;
      }
      selected++;
      Member m = fromPod(pod, spec.port);
      if (m != null) {
        byAddress.putIfAbsent(m.address(), m);
      }
    }
    return selected;
  }

  private static void addStatic(
      ReplicaPoolSpec spec, Map<String, Member> byAddress, List<String> problems) {
    for (StaticEndpoint e : spec.endpointsOrEmpty()) {
      Integer port = e.port != null ? e.port : spec.port;
      if (port == null) {
        problems.add("endpoint " + e.host + " has no port");
        continue;
      }
      String drainedBy = Boolean.TRUE.equals(e.drain) ? STATIC_DRAIN : null;
      Member m = new Member(e.host, port, MemberSource.Static, null, false, null, null, drainedBy);
      byAddress.putIfAbsent(m.address(), m);
    }
  }

  /**
   * A Pod is a member while it has an IP and is Ready; terminating, it is drained for good; with
   * the drain annotation, until the annotation goes. A Pod with the {@link RoutableGate} readiness
   * gate is not Ready before the pool routes to it, so its containers being ready is enough.
   */
  static Member fromPod(Pod pod, int port) {
    String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
    if (ip == null || ip.isBlank()) {
      return null;
    }
    boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
    boolean ready =
        isReady(pod) || (RoutableGate.declares(pod) && hasCondition(pod, "ContainersReady"));
    if (!terminating && !ready) {
      return null;
    }
    return new Member(
        ip,
        port,
        MemberSource.Pod,
        pod.getMetadata().getName(),
        terminating,
        null,
        null,
        drainedBy(pod.getMetadata().getAnnotations()));
  }

  /** The reason of a member drained by {@link LeaseConventions#DRAIN_ANNOTATION}, else null. */
  static String drainedBy(Map<String, String> annotations) {
    return annotations != null
            && "true".equalsIgnoreCase(annotations.get(LeaseConventions.DRAIN_ANNOTATION))
        ? ANNOTATION_DRAIN
        : null;
  }

  /**
   * Whether a member that discovery no longer finds left by an edit while it still runs, so that it
   * may keep serving until new members take over: a static endpoint (only an edit removes one), or
   * a Pod still there, Ready and not terminating, at the same IP (the selector or its labels
   * changed). A Lease member left because its Lease expired or was deleted, a Pod because it is
   * gone, not Ready or terminating: those leave at once.
   */
  public static boolean leftByEdit(Member m, Collection<Pod> podsInNamespace) {
    return switch (m.source()) {
      case Static -> true;
      case Pod ->
          podsInNamespace.stream()
              .filter(p -> m.name() != null && m.name().equals(p.getMetadata().getName()))
              .map(p -> fromPod(p, m.port()))
              .anyMatch(now -> now != null && !now.draining() && now.host().equals(m.host()));
      default -> false;
    };
  }

  static boolean isReady(Pod pod) {
    return hasCondition(pod, "Ready");
  }

  private static boolean hasCondition(Pod pod, String type) {
    return pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * Whether a Lease has expired: not renewed for its pool's lease duration, on evidence ({@link
   * LeaseExpiry}); an expiry not yet confirmed is not one.
   */
  public boolean isExpired(Lease lease, long leaseDurationMillis, long now) {
    return expiry.judge(lease, leaseDurationMillis, now) == LeaseExpiry.Verdict.EXPIRED;
  }

  private Member fromLease(Lease lease, long durationMillis, long now, List<String> problems) {
    Map<String, String> annotations = lease.getMetadata().getAnnotations();
    String address =
        annotations == null ? null : annotations.get(LeaseConventions.ADDRESS_ANNOTATION);
    String name = lease.getMetadata().getName();
    if (address == null) {
      problems.add(
          "Lease " + name + " has no " + LeaseConventions.ADDRESS_ANNOTATION + " annotation");
      return null;
    }
    int colon = address.lastIndexOf(':');
    int port;
    try {
      port = colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      problems.add("Lease " + name + " has an invalid address " + address);
      return null;
    }
    LeaseExpiry.Verdict verdict = expiry.judge(lease, durationMillis, now);
    if (verdict == LeaseExpiry.Verdict.EXPIRED) {
      return null;
    }
    // An unconfirmed expiry keeps the member; the reconcile wakes at its "expiry" to look again.
    long expiresAt =
        verdict == LeaseExpiry.Verdict.ALIVE
            ? expiry.dueMillis(lease, durationMillis)
            : now + LeaseExpiry.RECHECK_MILLIS;
    String healthy = annotations.get(LeaseConventions.HEALTHY_ANNOTATION);
    return new Member(
        address.substring(0, colon),
        port,
        MemberSource.Lease,
        name,
        false,
        healthy == null || !"false".equalsIgnoreCase(healthy),
        expiresAt,
        drainedBy(annotations));
  }
}
