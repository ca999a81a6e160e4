package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.health.HealthPolicy;
import dev.replicapool.operator.health.HealthSnapshot;
import dev.replicapool.operator.health.MemberHealth;
import dev.replicapool.operator.health.Transition;
import dev.replicapool.operator.health.WeightPolicy;
import dev.replicapool.operator.membership.HandOver;
import dev.replicapool.operator.probing.ProbeSpec;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * What the operator knows of one pool between reconciles: its members with their health models, and
 * what the last reconciles reported (the last status write, the last refusal, panic). Probe results
 * arrive on the prober's event loop while reconciles run on JOSDK's threads, so every access is
 * synchronized on the instance. {@link PoolRegistry} holds one per pool.
 */
final class PoolState {
  /** One member and its health model. */
  record Tracked(Member member, MemberHealth health) {}

  /**
   * What changed when the member set was synchronized with discovery: members to probe, members to
   * stop probing, and what became of members that left by an edit ({@link HandOver}).
   */
  record SyncResult(List<Member> added, List<Member> removed, List<Departure> departures) {}

  /** A member that left by an edit: now kept serving, or its hand-over over and removed. */
  record Departure(Member member, HandOver.Phase phase, String reason) {}

  /** A leaving member as status shows it: Draining, with why and until when it is kept. */
  record Kept(Member member, HealthSnapshot shown) {}

  /** A member's state change, kept until the next reconcile reports it. */
  record MemberTransition(String address, Transition transition) {}

  /**
   * Whether the pool still exists. A pool's deletion is final: once {@link #retire}d, nothing
   * publishes it again, whichever thread held the state when the pool was deleted.
   */
  enum Lifecycle {
    LIVE,
    DELETED
  }

  private final ResourceID id;
  private final String name;
  private final Clock clock;
  private ReplicaPoolSpec spec;
  private HealthPolicy policy;
  private TlsMaterial tls;
  private UpstreamTlsMaterial upstreamTls;
  private ProbeSpec probeSpec;
  private final Map<String, Tracked> members = new TreeMap<>();
  // Members that left by an edit and still serve until the new ones can take over.
  private final Map<String, Tracked> leaving = new TreeMap<>();
  private final HandOver handOver;
  private final List<MemberTransition> pending = new ArrayList<>();
  private long lastStatusWriteMillis;
  private String lastRejection;
  private boolean panicking;
  private Lifecycle lifecycle = Lifecycle.LIVE;

  PoolState(ResourceID id, Clock clock) {
    this.id = id;
    this.name = PoolRegistry.name(id);
    this.clock = clock;
    this.handOver = new HandOver(clock);
  }

  ResourceID id() {
    return id;
  }

  /** "namespace/name": how the prober, the publisher, the data planes and metrics name the pool. */
  String name() {
    return name;
  }

  synchronized boolean live() {
    return lifecycle == Lifecycle.LIVE;
  }

  /**
   * Marks the pool deleted. Callers that publish check {@link #live} under this monitor, so a
   * publish either finished before this or sees the pool deleted.
   */
  synchronized void retire() {
    lifecycle = Lifecycle.DELETED;
  }

  synchronized ReplicaPoolSpec spec() {
    return spec;
  }

  synchronized HealthPolicy policy() {
    return policy;
  }

  synchronized TlsMaterial tls() {
    return tls;
  }

  synchronized void setTls(TlsMaterial tls) {
    this.tls = tls;
  }

  synchronized UpstreamTlsMaterial upstreamTls() {
    return upstreamTls;
  }

  synchronized void setUpstreamTls(UpstreamTlsMaterial upstreamTls) {
    this.upstreamTls = upstreamTls;
  }

  /** Remembers how members are probed; true when that changed since the last call. */
  synchronized boolean setProbeSpec(ProbeSpec spec) {
    boolean changed = probeSpec != null && !probeSpec.equals(spec);
    this.probeSpec = spec;
    return changed;
  }

  /**
   * Makes the tracked members those discovery found; a new one is Pending until its first probes
   * pass. A new health policy (the spec's health or routing parameters changed) starts every
   * member's model afresh; members that stay keep their history otherwise.
   */
  synchronized SyncResult sync(ReplicaPoolSpec newSpec, List<Member> discovered) {
    return sync(newSpec, discovered, Set.of());
  }

  /** As {@link #sync(ReplicaPoolSpec, List, Set, Predicate)}, nobody handed over. */
  synchronized SyncResult sync(
      ReplicaPoolSpec newSpec, List<Member> discovered, Set<String> routableBefore) {
    return sync(newSpec, discovered, routableBefore, m -> false);
  }

  /**
   * As {@link #sync(ReplicaPoolSpec, List)}; on the first sync of this state (an operator that just
   * started or took the lead) members in {@code routableBefore} (the addresses the pool's status
   * showed routable) start Healthy: another operator replica already saw them answer, and waiting
   * for their first probe again would pull every member from the data planes at once. A routable
   * member that discovery no longer finds and that {@code leftByEdit} (removed from the spec, a Pod
   * no longer selected) keeps serving until its {@link HandOver} lets it go.
   */
  synchronized SyncResult sync(
      ReplicaPoolSpec newSpec,
      List<Member> discovered,
      Set<String> routableBefore,
      Predicate<Member> leftByEdit) {
    Set<String> established = policy == null ? routableBefore : Set.of();
    HealthPolicy newPolicy = HealthPolicy.from(newSpec);
    boolean policyChanged = policy != null && !policy.equals(newPolicy);
    this.spec = newSpec;
    this.policy = newPolicy;
    List<Member> added = new ArrayList<>();
    List<Member> removed = new ArrayList<>();
    List<Departure> departures = new ArrayList<>();
    Map<String, Member> wanted = new TreeMap<>();
    discovered.forEach(m -> wanted.put(m.address(), m));
    int routableNow = routable(members.values()) + routable(leaving.values());
    List<String> newlyLeaving = new ArrayList<>();
    for (var it = members.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (!wanted.containsKey(e.getKey())) {
        Tracked t = e.getValue();
        if (leftByEdit.test(t.member()) && t.health().snapshot().routable()) {
          // Still serving: it leaves once the new members can take its requests.
          leaving.put(e.getKey(), t);
          handOver.left(e.getKey(), howItLeft(t.member()), routableNow);
          newlyLeaving.add(e.getKey());
        } else {
          removed.add(t.member());
        }
        it.remove();
      }
    }
    for (Member m : wanted.values()) {
      Tracked back = leaving.remove(m.address());
      if (back != null) {
        handOver.returned(m.address());
        members.put(m.address(), back); // probed all along: not added again
      }
      Tracked old = members.get(m.address());
      MemberHealth health =
          old == null
              ? established.contains(m.address())
                  ? new MemberHealth(newPolicy, clock)
                  : MemberHealth.joining(newPolicy, clock)
              : policyChanged ? old.health().restartedWith(newPolicy) : old.health();
      if (old == null) {
        added.add(m);
      }
      observeDiscovered(m, health);
      members.put(m.address(), new Tracked(m, health));
    }
    if (policyChanged) {
      // Probing restarts with the new parameters for every member.
      added.clear();
      added.addAll(wanted.values());
    }
    settleLeaving(newlyLeaving, leftByEdit, removed, departures);
    return new SyncResult(added, removed, departures);
  }

  /**
   * Removes the leaving members the hand-over lets go, and those no longer up ({@code stillUp}
   * false: a kept Pod was deleted meanwhile); reports those that stay and just left.
   */
  private void settleLeaving(
      List<String> newlyLeaving,
      Predicate<Member> stillUp,
      List<Member> removed,
      List<Departure> departures) {
    int routableNew = routable(members.values());
    for (var it = leaving.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Member m = e.getValue().member();
      HandOver.Decision d =
          !stillUp.test(m)
              ? handOver.stopped(e.getKey())
              : handOver.decide(
                  e.getKey(),
                  e.getValue().health().snapshot().routable(),
                  routableNew,
                  members.size(),
                  policy.startupGraceMillis());
      if (d.phase() == HandOver.Phase.REMOVED) {
        it.remove();
        removed.add(m);
        departures.add(new Departure(m, d.phase(), d.reason()));
      } else if (newlyLeaving.contains(e.getKey())) {
        departures.add(new Departure(m, d.phase(), d.reason()));
      }
    }
  }

  private static String howItLeft(Member m) {
    return m.source() == MemberSource.Pod ? "no longer selected" : "removed from spec";
  }

  private static int routable(java.util.Collection<Tracked> tracked) {
    return (int) tracked.stream().filter(t -> t.health().snapshot().routable()).count();
  }

  /** Whether a leaving member's hand-over is over, so that a reconcile should remove it. */
  synchronized boolean handOverDue() {
    return leaving.entrySet().stream()
        .anyMatch(e -> judge(e.getKey(), e.getValue()).phase() == HandOver.Phase.REMOVED);
  }

  private HandOver.Decision judge(String address, Tracked t) {
    return handOver.judge(
        address,
        t.health().snapshot().routable(),
        routable(members.values()),
        members.size(),
        policy.startupGraceMillis());
  }

  /** The leaving members, each shown Draining with why and until when it is kept. */
  synchronized List<Kept> leaving() {
    List<Kept> out = new ArrayList<>(leaving.size());
    for (var e : leaving.entrySet()) {
      HealthSnapshot h = e.getValue().health().snapshot();
      HealthSnapshot shown =
          new HealthSnapshot(
              MemberState.Draining,
              h.weight(),
              h.latencyP95Millis(),
              h.errorRate(),
              judge(e.getKey(), e.getValue()).reason(),
              Instant.ofEpochMilli(handOver.sinceMillis(e.getKey())),
              h.consecutiveFailures(),
              h.consecutiveSuccesses(),
              h.utilization());
      out.add(new Kept(e.getValue().member(), shown));
    }
    return out;
  }

  /** What discovery says of a member beyond its presence: draining, time, its own health flag. */
  private void observeDiscovered(Member m, MemberHealth health) {
    if (m.draining()) {
      health.onDraining().ifPresent(t -> pending.add(new MemberTransition(m.address(), t)));
    } else if (m.drainedBy() != null) {
      health
          .onDrained(m.drainedBy())
          .ifPresent(t -> pending.add(new MemberTransition(m.address(), t)));
    } else {
      health.onUndrained().ifPresent(t -> pending.add(new MemberTransition(m.address(), t)));
    }
    // Time passes for members nobody probes (checks off): their recovery hold ends here.
    health.tick().ifPresent(t -> pending.add(new MemberTransition(m.address(), t)));
    if (m.selfReportedHealthy() != null) {
      health
          .onSelfReported(m.selfReportedHealthy())
          .ifPresent(t -> pending.add(new MemberTransition(m.address(), t)));
    }
  }

  /**
   * Feeds a probe result to the member's model ({@code failure}: what a failed probe said, null
   * otherwise); empty when the member is gone or unchanged.
   */
  synchronized Optional<Transition> onProbe(
      String address, boolean success, long latencyMillis, String failure) {
    return onProbe(address, success, latencyMillis, failure, null);
  }

  /** {@link #onProbe(String, boolean, long, String)} with the utilization the answer reported. */
  synchronized Optional<Transition> onProbe(
      String address, boolean success, long latencyMillis, String failure, Double utilization) {
    Tracked t = members.containsKey(address) ? members.get(address) : leaving.get(address);
    if (t == null) {
      return Optional.empty();
    }
    Optional<Transition> transition =
        t.health().onProbe(success, latencyMillis, failure, utilization);
    transition.ifPresent(tr -> pending.add(new MemberTransition(address, tr)));
    return transition;
  }

  /** The state changes since the last call, oldest first. */
  synchronized List<MemberTransition> drainTransitions() {
    List<MemberTransition> out = List.copyOf(pending);
    pending.clear();
    return out;
  }

  /** Whether the member is probed for this pool: a member, or one leaving that still serves. */
  synchronized boolean has(String address) {
    return members.containsKey(address) || leaving.containsKey(address);
  }

  synchronized List<Tracked> members() {
    return List.copyOf(members.values());
  }

  /**
   * The member set as the data planes get it: routable members carry their weight, others 0.
   * Leaving members that still serve are in it with their own state, so that the data planes keep
   * routing to them until they are removed.
   */
  synchronized List<MemberSnapshot> memberSnapshots() {
    List<MemberSnapshot> out = new ArrayList<>(members.size() + leaving.size());
    Map<String, Tracked> all = new TreeMap<>(leaving);
    all.putAll(members);
    for (Tracked t : all.values()) {
      var h = t.health().snapshot();
      double weight = h.routable() ? WeightPolicy.round(h.weight()) : 0.0;
      MemberState state = h.state();
      out.add(new MemberSnapshot(t.member().host(), t.member().port(), weight, state));
    }
    return out;
  }

  /** When status was last written (epoch millis), 0 before the first write. */
  synchronized long lastStatusWriteMillis() {
    return lastStatusWriteMillis;
  }

  synchronized void statusWritten(long nowMillis) {
    lastStatusWriteMillis = nowMillis;
  }

  /**
   * Remembers the data planes' current refusal ({@code null}: none); true when it differs from the
   * one remembered before.
   */
  synchronized boolean rejectionChanged(String rejection) {
    boolean changed = !Objects.equals(rejection, lastRejection);
    lastRejection = rejection;
    return changed;
  }

  /** Whether the last status showed panic routing. */
  synchronized boolean panicking() {
    return panicking;
  }

  synchronized void setPanicking(boolean panicking) {
    this.panicking = panicking;
  }
}
