package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.operator.discovery.Member;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolRegistryTest {
  final PoolRegistry registry = new PoolRegistry(new StepClock(1_000_000));

  static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  static Member podMember(String name, int port) {
    return new Member("10.0.0.1", port, MemberSource.Pod, name, false, null, null);
  }

  static final ResourceID WEB = new ResourceID("web", "shop");

  PoolState open(String uid) {
    return registry.open(WEB, uid).orElseThrow();
  }

  @Test
  void aPoolIsFoundByItsResourceIdAndByItsNameOutsideJosdk() {
    PoolState state = open("uid-1");
    assertThat(registry.open(WEB, "uid-1")).containsSame(state);
    assertThat(registry.find("shop/web")).containsSame(state);
    assertThat(registry.find("shop/other")).isEmpty();
    assertThat(registry.names()).containsExactly("shop/web");
    assertThat(registry.retire(WEB, "uid-1")).containsSame(state);
    assertThat(registry.find("shop/web")).isEmpty();
    assertThat(registry.names()).isEmpty();
  }

  @Test
  void aRetiredPoolIsDeletedForGood() {
    PoolState state = open("uid-1");
    assertThat(state.live()).isTrue();
    registry.retire(WEB, "uid-1");
    assertThat(state.live()).isFalse();
    // A reconcile that was under way, or a retry, of the deleted pool opens nothing.
    assertThat(registry.open(WEB, "uid-1")).isEmpty();
    assertThat(registry.find("shop/web")).isEmpty();
  }

  @Test
  void aNewPoolOfADeletedPoolsNameIsANewPool() {
    PoolState old = open("uid-1");
    registry.retire(WEB, "uid-1");
    PoolState fresh = open("uid-2");
    assertThat(fresh).isNotSameAs(old);
    assertThat(fresh.live()).isTrue();
  }

  @Test
  void aDeletionSeenBeforeAnyReconcileStillBarsTheUid() {
    assertThat(registry.retire(WEB, "uid-1")).isEmpty();
    assertThat(registry.open(WEB, "uid-1")).isEmpty();
  }

  @Test
  void onlyTheLastDeletedUidsAreKept() {
    for (int i = 0; i <= PoolRegistry.DELETED_UIDS_KEPT; i++) {
      registry.retire(WEB, "uid-" + i);
    }
    assertThat(registry.open(WEB, "uid-0")).isPresent();
    registry.retire(WEB, "uid-0");
    assertThat(registry.open(WEB, "uid-" + PoolRegistry.DELETED_UIDS_KEPT)).isEmpty();
  }

  @Test
  void aNameThatIsNoPoolNameFindsNothing() {
    open("uid-1");
    assertThat(registry.find("web")).isEmpty();
    assertThat(registry.find("")).isEmpty();
  }

  @Test
  void aPodIsRoutedToWhileAPoolOfItsNamespaceRoutesToIt() {
    PoolState routes = open("uid-1");
    routes.sync(
        new ReplicaPoolSpec(),
        List.of(podMember("web-0", 1), podMember("web-1", 2)),
        Set.of("10.0.0.1:1")); // web-0 was routable: starts Healthy; web-1 is Pending
    assertThat(registry.anyPoolRoutesTo(pod("shop", "web-0"))).isTrue();
    assertThat(registry.anyPoolRoutesTo(pod("shop", "web-1"))).isFalse();
    assertThat(registry.anyPoolRoutesTo(pod("other", "web-0"))).isFalse();
  }
}
