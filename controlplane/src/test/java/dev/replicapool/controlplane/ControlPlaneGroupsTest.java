package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.testing.TcpProxy;
import io.vertx.core.http.WebSocket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Data-plane groups on the real stream: a pool (and its TLS key) reaches only the data planes of
 * its groups, on connect, on reconnect and when its groups change; group tokens and group
 * certificates decide which group a data plane may serve.
 */
class ControlPlaneGroupsTest extends StreamTestBase {
  static final String TOKEN_A = "token-of-group-a";
  static final String TOKEN_B = "token-of-group-b";

  ControlPlaneServer plainServer() {
    return server(new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN));
  }

  ControlPlaneClient.Options of(int port, String token, String node, String group) {
    ControlPlaneClient.Options o = ControlPlaneClient.Options.of("127.0.0.1", port, token, node);
    return group == null ? o : o.withGroup(group);
  }

  /** A stream that says hello as a data plane of {@code group} and keeps every frame it gets. */
  List<String> recordingSocket(int port, String token, String node, String group) {
    List<String> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = rawSocket(port, "Bearer " + token);
    ws.textMessageHandler(frames::add);
    ws.writeTextMessage(WireCodec.encode(StreamMessage.hello(node, group))).await();
    return frames;
  }

  static PoolSnapshot withTls(PoolSnapshot s, TlsMaterial tls) {
    return PoolSnapshotBuilder.builder(s).tls(tls).build();
  }

  @Test
  void aDataPlaneOfGroupBNeverReceivesAPoolOfGroupAOrItsKey() throws IOException {
    ControlPlaneServer server = plainServer();
    TlsMaterial keyOfA =
        new TlsMaterial(resource("tls/controlplane.crt"), resource("tls/controlplane.key"));
    server.publish(withTls(Snapshots.pool("shop/a", 1, 1.0), keyOfA), Set.of("a"));
    server.publish(Snapshots.pool("shop/b", 1, 1.0), Set.of("b"));
    server.publish(Snapshots.pool("shop/both", 1, 1.0), Set.of("a", "b"));
    server.markInitialSyncDone();

    RecordingApplier a = new RecordingApplier();
    RecordingApplier b = new RecordingApplier();
    client(of(server.port(), TOKEN, "dp-a", "a"), a);
    client(of(server.port(), TOKEN, "dp-b", "b"), b);
    List<String> framesOfB = recordingSocket(server.port(), TOKEN, "dp-b-raw", "b");
    await().atMost(WAIT).until(() -> a.calls.contains("synced") && b.calls.contains("synced"));
    await().atMost(WAIT).until(() -> framesOfB.stream().anyMatch(f -> f.contains("synced")));

    assertThat(a.current).containsOnlyKeys("shop/a", "shop/both");
    assertThat(b.current).containsOnlyKeys("shop/b", "shop/both");
    assertThat(b.calls).noneMatch(c -> c.contains("shop/a"));
    assertThat(framesOfB)
        .hasSize(3)
        .noneMatch(f -> f.contains("shop/a"))
        .noneMatch(f -> f.contains("PRIVATE KEY"));

    // A pool published later goes the same way.
    server.publish(withTls(Snapshots.pool("shop/a", 2, 1.0), keyOfA), Set.of("a"));
    await().atMost(WAIT).until(() -> a.version("shop/a") == 2);
    assertThat(framesOfB).noneMatch(f -> f.contains("shop/a"));

    // DataPlaneSynced counts the data planes of the pool's groups only.
    await().atMost(WAIT).until(() -> server.syncState("shop/a").synced());
    assertThat(server.syncState("shop/a").dataPlanes()).isEqualTo(1);
    assertThat(server.syncState("shop/both").dataPlanes()).isEqualTo(3);
    assertThat(server.dataPlanes("b")).containsExactly("dp-b", "dp-b-raw");

    // A pool whose groups have no data plane: nobody gets it, and nobody counts for it.
    server.publish(Snapshots.pool("shop/lonely", 1, 1.0), Set.of("nobody"));
    assertThat(server.syncState("shop/lonely")).isEqualTo(new SyncState(0, 0, 1, List.of()));
    assertThat(server.syncState("shop/lonely").synced()).isFalse();
  }

  @Test
  void aPoolThatChangesGroupsLeavesTheDataPlanesThatNoLongerServeIt() {
    ControlPlaneServer server = plainServer();
    server.publish(Snapshots.pool("shop/moving", 1, 1.0), Set.of("a"));
    RecordingApplier a = new RecordingApplier();
    RecordingApplier b = new RecordingApplier();
    client(of(server.port(), TOKEN, "dp-a", "a"), a);
    client(of(server.port(), TOKEN, "dp-b", "b"), b);
    await().atMost(WAIT).until(() -> a.current.containsKey("shop/moving"));

    server.publish(Snapshots.pool("shop/moving", 2, 1.0), Set.of("b"));
    await().atMost(WAIT).until(() -> a.calls.contains("remove shop/moving 2"));
    await().atMost(WAIT).until(() -> b.version("shop/moving") == 2);
    assertThat(a.current).isEmpty();
    await().atMost(WAIT).until(() -> server.syncState("shop/moving").synced());
    assertThat(server.syncState("shop/moving").dataPlanes()).isEqualTo(1);

    // The removal of a pool reaches only the data planes that served it.
    long removed = server.remove("shop/moving");
    await().atMost(WAIT).until(() -> b.calls.contains("remove shop/moving " + removed));
    assertThat(a.calls).doesNotContain("remove shop/moving " + removed);
  }

  @Test
  void onReconnectADataPlaneGetsOnlyItsGroupAndDropsAPoolThatMovedAwayMeanwhile() {
    ControlPlaneServer server = plainServer();
    server.publish(Snapshots.pool("shop/a", 1, 1.0), Set.of("a"));
    server.publish(Snapshots.pool("shop/b", 1, 1.0), Set.of("b"));
    server.markInitialSyncDone();
    try (TcpProxy link = TcpProxy.start("127.0.0.1", server.port())) {
      RecordingApplier b = new RecordingApplier();
      ControlPlaneClient client = client(of(link.port(), TOKEN, "dp-b", "b"), b);
      await().atMost(WAIT).until(() -> b.current.containsKey("shop/b"));

      // The stream breaks; meanwhile shop/b moves to group a and shop/c joins group b.
      link.cut();
      await().atMost(WAIT).until(() -> !client.connected());
      await().atMost(WAIT).until(() -> server.dataPlanes().isEmpty());
      server.publish(Snapshots.pool("shop/b", 2, 1.0), Set.of("a"));
      server.publish(Snapshots.pool("shop/c", 1, 1.0), Set.of("b"));
      b.calls.clear();
      link.restore();

      await().atMost(WAIT).until(() -> b.calls.contains("synced"));
      assertThat(b.current).containsOnlyKeys("shop/c");
      assertThat(b.calls).containsExactly("apply shop/c 1", "remove shop/b 1", "synced");
      assertThat(server.syncState("shop/b").dataPlanes()).isZero();
      assertThat(server.syncState("shop/c").dataPlanes()).isEqualTo(1);
    }
  }

  @Test
  void aGroupWithItsOwnTokenIsServedOnlyToThatToken() {
    ControlPlaneServer server =
        server(
            new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
                .withGroupTokens(Map.of("a", TOKEN_A, "b", TOKEN_B)));
    server.publish(Snapshots.pool("shop/a", 1, 1.0), Set.of("a"));
    server.publish(Snapshots.pool("shop/d", 1, 1.0));
    int port = server.port();

    RecordingApplier good = new RecordingApplier();
    client(of(port, TOKEN_A, "dp-a", "a"), good);
    RecordingApplier shared = new RecordingApplier();
    client(of(port, TOKEN, "dp-d", null), shared);
    await().atMost(WAIT).until(() -> good.current.containsKey("shop/a"));
    await().atMost(WAIT).until(() -> shared.current.containsKey("shop/d"));
    assertThat(good.current).containsOnlyKeys("shop/a");

    // B's stolen token, the shared token and a token of no group cannot subscribe to group a.
    List<ControlPlaneClient.Options> refused =
        List.of(
            of(port, TOKEN_B, "dp-thief-b", "a"),
            of(port, TOKEN, "dp-thief-shared", "a"),
            of(port, TOKEN_B, "dp-thief-default", null));
    List<RecordingApplier> appliers = new ArrayList<>();
    List<ControlPlaneClient> thieves = new ArrayList<>();
    for (ControlPlaneClient.Options o : refused) {
      RecordingApplier r = new RecordingApplier();
      appliers.add(r);
      thieves.add(client(o, r));
    }
    // Each redials and is closed again (lastError is cleared on every open): wait for the reason.
    awaitClosedWith(thieves.get(0), "the token is for group b, not a");
    awaitClosedWith(thieves.get(1), "group a needs its own token");
    awaitClosedWith(thieves.get(2), "the token is for group b, not default");
    await()
        .during(500, TimeUnit.MILLISECONDS)
        .atMost(WAIT)
        .until(() -> server.dataPlanes().size() == 2);
    assertThat(appliers).allSatisfy(r -> assertThat(r.calls).isEmpty());
    assertThat(server.syncState("shop/a").dataPlanes()).isEqualTo(1);
  }

  @Test
  void theGroupOfAClientCertificateDecidesWhichPoolsItGets() throws IOException {
    ControlPlaneServer server =
        server(
            new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
                .withTls(
                    new TlsMaterial(
                        resource("tls/controlplane.crt"), resource("tls/controlplane.key")))
                .withClientCa(resource("tls/groups/group-ca.crt")));
    server.publish(Snapshots.pool("shop/a", 1, 1.0), Set.of("a"));
    server.publish(Snapshots.pool("shop/b", 1, 1.0), Set.of("b"));
    server.publish(Snapshots.pool("shop/d", 1, 1.0));
    int port = server.port();

    // The certificate says b; the hello names no group: the data plane serves b.
    RecordingApplier b = new RecordingApplier();
    client(mtls(port, "dp-cert-b", null, "dp-group-b"), b);
    await().atMost(WAIT).until(() -> b.current.containsKey("shop/b"));
    assertThat(b.current).containsOnlyKeys("shop/b");
    assertThat(server.dataPlanes("b")).containsExactly("dp-cert-b");

    // A certificate without a group leaves the choice to the hello.
    RecordingApplier free = new RecordingApplier();
    client(mtls(port, "dp-free", "a", "dp-no-group"), free);
    await().atMost(WAIT).until(() -> free.current.containsKey("shop/a"));
    assertThat(free.current).containsOnlyKeys("shop/a");

    // A certificate of group b cannot ask for a, and one naming two groups is refused.
    RecordingApplier liar = new RecordingApplier();
    ControlPlaneClient liarClient = client(mtls(port, "dp-liar", "a", "dp-group-b"), liar);
    RecordingApplier two = new RecordingApplier();
    ControlPlaneClient twoClient = client(mtls(port, "dp-two", null, "dp-two-groups"), two);
    awaitClosedWith(liarClient, "the client certificate is for group b, not a");
    awaitClosedWith(twoClient, "several groups");
    await()
        .during(300, TimeUnit.MILLISECONDS)
        .atMost(WAIT)
        .until(() -> server.dataPlanes().size() == 2);
    assertThat(liar.calls).isEmpty();
    assertThat(two.calls).isEmpty();
  }

  static void awaitClosedWith(ControlPlaneClient c, String reason) {
    await().atMost(WAIT).until(() -> String.valueOf(c.lastError()).contains(reason));
  }

  ControlPlaneClient.Options mtls(int port, String node, String group, String cert)
      throws IOException {
    return of(port, TOKEN, node, group)
        .withTrustPem(resource("tls/controlplane.crt"))
        .withClientCertificate(
            resource("tls/groups/" + cert + ".crt"), resource("tls/groups/" + cert + ".key"));
  }

  @Test
  void groupNamesMustBeDnsLabels() {
    ControlPlaneClient.Options o = ControlPlaneClient.Options.of("127.0.0.1", 1, TOKEN, "dp");
    assertThatThrownBy(() -> o.withGroup("Edge_1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DNS label");
    assertThat(o.withGroup("edge-1").toString()).contains("group=edge-1");
    assertThatThrownBy(
            () ->
                new ControlPlaneServer(
                    vertx,
                    new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
                        .withGroupTokens(Map.of("Not A Group", "t"))))
        .isInstanceOf(IllegalArgumentException.class);
    for (Map<String, String> sharing :
        List.of(Map.of("a", TOKEN), Map.of("a", TOKEN_A, "b", TOKEN_A))) {
      assertThatThrownBy(
              () ->
                  new ControlPlaneServer(
                      vertx,
                      new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
                          .withGroupTokens(sharing)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("also the shared token or another group's");
    }
    ControlPlaneServer server = plainServer();
    assertThatThrownBy(() -> server.publish(Snapshots.pool("shop/x", 1, 1.0), Set.of()))
        .isInstanceOf(IllegalArgumentException.class);
    // A hello naming an invalid group is closed.
    List<String> frames = recordingSocket(server.port(), TOKEN, "dp-bad", "Bad Group");
    await().during(200, TimeUnit.MILLISECONDS).atMost(WAIT).until(server.dataPlanes()::isEmpty);
    assertThat(frames).isEmpty();
  }
}
