package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.wire.StreamMessage;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnapshotStoreTest {
  final AtomicLong clock = new AtomicLong(1_000);
  final SnapshotStore store = new SnapshotStore(clock::get);

  @Test
  void anUnknownPoolHasNoEntryAndVersionZero() {
    assertThat(store.get("ns/a")).isNull();
    assertThat(store.latestVersion("ns/a")).isZero();
    assertThat(store.entries()).isEmpty();
  }

  @Test
  void theNextVersionOfAnUnknownPoolIsTheClock() {
    assertThat(store.nextVersion("ns/a")).isEqualTo(1_000);
  }

  @Test
  void theNextVersionTopsTheLatestOneWhenTheClockIsBehind() {
    store.publish("ns/a", 5_000, "f5", Set.of("default"));
    assertThat(store.nextVersion("ns/a")).isEqualTo(5_001);
    clock.set(9_000);
    assertThat(store.nextVersion("ns/a")).isEqualTo(9_000);
  }

  @Test
  void publishStoresTheFrameWithItsGroups() {
    SnapshotStore.Entry e = store.publish("ns/a", 7, "f7", Set.of("edge", "default"));
    assertThat(e).isEqualTo(new SnapshotStore.Entry(7, "f7", false, Set.of("edge", "default")));
    assertThat(store.get("ns/a")).isEqualTo(e);
    assertThat(store.latestVersion("ns/a")).isEqualTo(7);
  }

  @Test
  void publishRefusesAVersionNotAboveTheLatestAndKeepsTheOldEntry() {
    SnapshotStore.Entry first = store.publish("ns/a", 7, "f7", Set.of("default"));
    assertThat(store.publish("ns/a", 7, "again", Set.of("default"))).isNull();
    assertThat(store.publish("ns/a", 6, "older", Set.of("default"))).isNull();
    assertThat(store.get("ns/a")).isSameAs(first);
  }

  @Test
  void aNewerVersionReplacesTheEntryAndItsGroups() {
    store.publish("ns/a", 7, "f7", Set.of("default"));
    store.publish("ns/a", 8, "f8", Set.of("edge"));
    assertThat(store.get("ns/a"))
        .isEqualTo(new SnapshotStore.Entry(8, "f8", false, Set.of("edge")));
  }

  @Test
  void removeTakesTheNextVersionAndTheGroupsThatServedThePool() {
    store.publish("ns/a", 5_000, "f", Set.of("edge"));
    SnapshotStore.Entry removal = store.remove("ns/a");
    assertThat(removal.version()).isEqualTo(5_001);
    assertThat(removal.removed()).isTrue();
    assertThat(removal.groups()).containsExactly("edge");
    assertThat(WireCodec.decode(removal.frame())).isEqualTo(StreamMessage.remove("ns/a", 5_001));
    assertThat(store.get("ns/a")).isEqualTo(removal);
  }

  @Test
  void removingAPoolNeverPublishedIsForTheDefaultGroup() {
    SnapshotStore.Entry removal = store.remove("ns/a");
    assertThat(removal.version()).isEqualTo(1_000);
    assertThat(removal.groups()).isEqualTo(SnapshotStore.DEFAULT_GROUPS);
  }

  @Test
  void afterARemovalOnlyANewerVersionIsPublished() {
    store.publish("ns/a", 5_000, "f", Set.of("default"));
    long removed = store.remove("ns/a").version();
    assertThat(store.publish("ns/a", removed, "same", Set.of("default"))).isNull();
    assertThat(store.publish("ns/a", removed + 1, "new", Set.of("default")).removed()).isFalse();
  }

  @Test
  void entriesKeepTheOrderInWhichPoolsWereFirstStored() {
    store.publish("ns/b", 1, "b1", Set.of("default"));
    store.publish("ns/a", 1, "a1", Set.of("default"));
    store.publish("ns/b", 2, "b2", Set.of("default"));
    store.remove("ns/c");
    assertThat(store.entries().keySet()).containsExactly("ns/b", "ns/a", "ns/c");
  }
}
