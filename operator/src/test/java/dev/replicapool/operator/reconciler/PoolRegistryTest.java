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

  @Test
  void aPoolIsFoundByItsResourceIdAndByItsNameOutsideJosdk() {
    PoolState state = registry.getOrCreate(new ResourceID("web", "shop"));
    assertThat(registry.getOrCreate(new ResourceID("web", "shop"))).isSameAs(state);
    assertThat(registry.find("shop/web")).containsSame(state);
    assertThat(registry.find("shop/other")).isEmpty();
    assertThat(registry.remove(new ResourceID("web", "shop"))).containsSame(state);
    assertThat(registry.find("shop/web")).isEmpty();
  }

  @Test
  void aNameThatIsNoPoolNameFindsNothing() {
    registry.getOrCreate(new ResourceID("web", "shop"));
    assertThat(registry.find("web")).isEmpty();
    assertThat(registry.find("")).isEmpty();
  }

  @Test
  void aPodIsRoutedToWhileAPoolOfItsNamespaceRoutesToIt() {
    PoolState routes = registry.getOrCreate(new ResourceID("web", "shop"));
    routes.sync(
        new ReplicaPoolSpec(),
        List.of(podMember("web-0", 1), podMember("web-1", 2)),
        Set.of("10.0.0.1:1")); // web-0 was routable: starts Healthy; web-1 is Pending
    assertThat(registry.anyPoolRoutesTo(pod("shop", "web-0"))).isTrue();
    assertThat(registry.anyPoolRoutesTo(pod("shop", "web-1"))).isFalse();
    assertThat(registry.anyPoolRoutesTo(pod("other", "web-0"))).isFalse();
  }
}
