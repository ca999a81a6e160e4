package dev.replicapool.controlplane;

import static dev.replicapool.controlplane.Snapshots.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControlPlaneStreamTest extends StreamTestBase {
  ControlPlaneServer server(int port) {
    return server(new ControlPlaneServer.Options("127.0.0.1", port, TOKEN));
  }

  ControlPlaneClient client(int port, String node, SnapshotApplier applier) {
    return client(ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, node), applier);
  }

  @Test
  void refusesClientsWithoutTheRightTokenBeforeTheUpgrade() {
    ControlPlaneServer server = server(0);
    int port = server.port();
    assertThatThrownBy(() -> rawSocket(port, null))
        .isInstanceOfSatisfying(
            UpgradeRejectedException.class, e -> assertThat(e.getStatus()).isEqualTo(401));
    assertThatThrownBy(() -> rawSocket(port, "Bearer wrong-token"))
        .isInstanceOfSatisfying(
            UpgradeRejectedException.class, e -> assertThat(e.getStatus()).isEqualTo(401));
    assertThatThrownBy(() -> rawSocket(port, TOKEN))
        .isInstanceOfSatisfying(
            UpgradeRejectedException.class, e -> assertThat(e.getStatus()).isEqualTo(401));
    HttpClient http = vertx.createHttpClient();
    int plain =
        new OnEventLoop(vertx)
            .call(
                () ->
                    http.request(
                            HttpMethod.GET, port, "127.0.0.1", ControlPlaneProtocol.STREAM_PATH)
                        .compose(r -> r.send()))
            .await()
            .statusCode();
    assertThat(plain).isEqualTo(401);

    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient wrong =
        client(ControlPlaneClient.Options.of("127.0.0.1", port, "nope", "dp-x"), applier);
    server.publish(pool("shop/tracking", 1, 1.0));
    await().atMost(WAIT).until(() -> wrong.lastError() != null);
    assertThat(wrong.connected()).isFalse();
    assertThat(wrong.lastError()).contains("401");
    assertThat(server.dataPlanes()).isEmpty();
    assertThat(applier.calls).isEmpty();
  }

  @Test
  void snapshotIsAppliedAndAckedAndCountsAsSynced() {
    ControlPlaneServer server = server(0);
    List<String> changes = new CopyOnWriteArrayList<>();
    server.onSyncChange(changes::add);
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient client = client(server.port(), "dp-1", applier);
    await().atMost(WAIT).until(client::connected);
    await().atMost(WAIT).until(() -> server.dataPlanes().equals(List.of("dp-1")));

    assertThat(server.publish(pool("shop/tracking", 7, 1.0, 1.0))).isTrue();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(server.syncState("shop/tracking"))
                    .isEqualTo(new SyncState(1, 1, 7, List.of())));
    assertThat(applier.calls).containsExactly("apply shop/tracking 7");
    assertThat(server.syncState("shop/tracking").synced()).isTrue();
    assertThat(changes).contains("shop/tracking");

    // A second data plane counts too, and gets the pool at once.
    RecordingApplier second = new RecordingApplier();
    client(server.port(), "dp-2", second);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(server.syncState("shop/tracking"))
                    .isEqualTo(new SyncState(2, 2, 7, List.of())));
    assertThat(second.version("shop/tracking")).isEqualTo(7);
  }

  @Test
  void syncedFollowsTheInitialBurstOnlyOnceTheOperatorSaysItPublishedEverything() {
    ControlPlaneServer server = server(0);
    server.publish(pool("shop/tracking", 7, 1.0, 1.0));
    RecordingApplier early = new RecordingApplier();
    ControlPlaneClient earlyClient = client(server.port(), "dp-early", early);
    await().atMost(WAIT).until(() -> early.version("shop/tracking") == 7);
    // The operator has not said it published every pool yet: no "synced".
    assertThat(early.calls).containsExactly("apply shop/tracking 7");

    server.markInitialSyncDone();
    await().atMost(WAIT).until(() -> early.calls.contains("synced"));

    // A later data plane gets its snapshots, then "synced", in that order.
    RecordingApplier late = new RecordingApplier();
    client(server.port(), "dp-late", late);
    await().atMost(WAIT).until(() -> late.calls.contains("synced"));
    assertThat(late.calls).containsExactly("apply shop/tracking 7", "synced");
    assertThat(earlyClient.connected()).isTrue();
  }

  @Test
  void framesThatArriveTogetherAreAppliedAsBatchesWithoutTwoChangesOfOnePool() {
    ControlPlaneServer server = server(0);
    for (int i = 0; i < 300; i++) {
      server.publish(pool("burst/p" + i, 1, 1.0, 1.0));
    }
    server.markInitialSyncDone();
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient c = client(server.port(), "dp-burst", applier);
    await().atMost(WAIT).until(() -> applier.calls.contains("synced"));

    // The replay arrives in a few reads: batches, not 300 single frames; all before "synced".
    assertThat(applier.calls).hasSize(301).endsWith("synced");
    assertThat(applier.batches.stream().mapToInt(List::size).sum()).isEqualTo(300);
    assertThat(applier.batches.stream().mapToInt(List::size).max().orElse(0)).isGreaterThan(1);
    await().atMost(WAIT).until(() -> server.syncState("burst/p299").synced());

    // Versions of one pool sent back to back are never in one batch: each sees the one before.
    applier.batches.clear();
    for (long v = 2; v <= 40; v++) {
      server.publish(pool("burst/p0", v, 1.0));
    }
    await().atMost(WAIT).until(() -> applier.version("burst/p0") == 40);
    assertThat(applier.batches).allSatisfy(b -> assertThat(b).doesNotHaveDuplicates());
    assertThat(applier.batches.stream().mapToInt(List::size).sum()).isEqualTo(39);
    await().atMost(WAIT).until(() -> server.syncState("burst/p0").synced());
    assertThat(c.connected()).isTrue();
  }

  @Test
  void invalidSnapshotIsNackedWithItsReasonAndTheLastGoodOneStays() {
    ControlPlaneServer server = server(0);
    RecordingApplier applier = new RecordingApplier();
    client(server.port(), "dp-1", applier);
    server.publish(pool("shop/tracking", 1, 1.0));
    await().atMost(WAIT).until(() -> server.syncState("shop/tracking").synced());

    server.publish(pool("shop/tracking", 2, 1.0, 2.5));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SyncState s = server.syncState("shop/tracking");
              assertThat(s.dataPlanes()).isEqualTo(1);
              assertThat(s.atLatestVersion()).isZero();
              assertThat(s.latestVersion()).isEqualTo(2);
              assertThat(s.nacks())
                  .singleElement()
                  .asString()
                  .startsWith("dp-1: version 2: invalid snapshot:")
                  .contains("weight must be within 0..1, got 2.5");
            });
    assertThat(applier.calls).containsExactly("apply shop/tracking 1");
    assertThat(applier.version("shop/tracking")).isEqualTo(1);
    assertThat(server.syncState("shop/tracking").nacks())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("dp-1: version 2");

    // The applier's own refusal (e.g. a port in use) is a NACK too.
    applier.rejectPools.put("shop/tracking", "port 18080 is in use");
    server.publish(pool("shop/tracking", 3, 1.0));
    await()
        .atMost(WAIT)
        .until(
            () ->
                server
                    .syncState("shop/tracking")
                    .nacks()
                    .equals(List.of("dp-1: version 3: port 18080 is in use")));

    // A good version clears the NACK.
    applier.rejectPools.clear();
    server.publish(pool("shop/tracking", 4, 1.0));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(server.syncState("shop/tracking"))
                    .isEqualTo(new SyncState(1, 1, 4, List.of())));
  }

  @Test
  void reconnectGetsEverythingAtOnceAndTheLastGoodStateStaysMeanwhile() {
    ControlPlaneServer first = server(0);
    int port = first.port();
    first.publish(pool("shop/a", 1, 1.0));
    first.publish(pool("shop/b", 1, 1.0));
    RecordingApplier applier = new RecordingApplier();
    List<Boolean> transitions = new CopyOnWriteArrayList<>();
    ControlPlaneClient client =
        client(
            ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-1"),
            applier,
            transitions::add);
    await().atMost(WAIT).until(() -> applier.current.size() == 2);

    // The operator goes away: the data plane keeps what it had.
    first.stop().await();
    servers.remove(first);
    await().atMost(WAIT).until(() -> !client.connected());
    assertThat(applier.current.keySet()).containsExactlyInAnyOrder("shop/a", "shop/b");

    // A new operator process on the same port, with newer versions and a third pool.
    ControlPlaneServer second = server(port);
    second.publish(pool("shop/a", 2, 1.0, 1.0));
    second.publish(pool("shop/b", 2, 1.0));
    second.publish(pool("shop/c", 1, 1.0));
    await().atMost(WAIT).until(client::connected);
    await()
        .atMost(WAIT)
        .until(
            () ->
                applier.version("shop/a") == 2
                    && applier.version("shop/b") == 2
                    && applier.version("shop/c") == 1);
    assertThat(transitions).containsExactly(true, false, true);
    for (String p : List.of("shop/a", "shop/b", "shop/c")) {
      await().atMost(WAIT).until(() -> second.syncState(p).synced());
    }
  }

  @Test
  void aPoolDeletedWhileTheOperatorWasAwayIsRemovedOnceTheNewOneSaysSynced() {
    ControlPlaneServer first = server(0);
    int port = first.port();
    first.publish(pool("shop/kept", 1, 1.0));
    first.publish(pool("shop/deleted", 1, 1.0));
    first.markInitialSyncDone();
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient client =
        client(ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-1"), applier);
    await().atMost(WAIT).until(() -> applier.calls.contains("synced"));
    first.stop().await();
    servers.remove(first);
    await().atMost(WAIT).until(() -> !client.connected());
    applier.calls.clear();

    // The operator comes back without shop/deleted (its ReplicaPool went while it was down).
    ControlPlaneServer second = server(port);
    second.publish(pool("shop/kept", 2, 1.0));
    await().atMost(WAIT).until(() -> applier.version("shop/kept") == 2);
    // Not before the operator says it has published everything: it may just be slow.
    assertThat(applier.current).containsKey("shop/deleted");
    second.markInitialSyncDone();

    await().atMost(WAIT).until(() -> applier.calls.contains("synced"));
    assertThat(applier.calls)
        .containsExactly("apply shop/kept 2", "remove shop/deleted 1", "synced");
    assertThat(applier.current.keySet()).containsExactly("shop/kept");

    // If it comes back later, it is applied like any new pool.
    second.publish(pool("shop/deleted", second.nextVersion("shop/deleted"), 1.0));
    await().atMost(WAIT).until(() -> applier.current.containsKey("shop/deleted"));
  }

  @Test
  void anOperatorThatGaveUpWaitingForSomePoolsMakesNoDataPlaneDropAny() {
    ControlPlaneServer first = server(0);
    int port = first.port();
    first.publish(pool("shop/kept", 1, 1.0));
    first.publish(pool("shop/lagging", 1, 1.0));
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient client =
        client(ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-1"), applier);
    await().atMost(WAIT).until(() -> applier.current.size() == 2);
    first.stop().await();
    servers.remove(first);
    await().atMost(WAIT).until(() -> !client.connected());
    applier.calls.clear();

    ControlPlaneServer second = server(port);
    second.publish(pool("shop/kept", 2, 1.0));
    second.markInitialSyncDone(false);

    await().atMost(WAIT).until(() -> applier.calls.contains("synced"));
    assertThat(applier.calls).containsExactly("apply shop/kept 2", "synced");
    assertThat(applier.current.keySet()).containsExactlyInAnyOrder("shop/kept", "shop/lagging");
  }

  @Test
  void aSecondStreamOfTheSameNodeReplacesTheFirstAndCountsOnce() {
    ControlPlaneServer server = server(0);
    server.publish(pool("shop/a", 1, 1.0));
    WebSocket older = rawSocket(server.port(), "Bearer " + TOKEN);
    older.writeTextMessage(WireCodec.encode(StreamMessage.hello("dp-same"))).await();
    await().atMost(WAIT).until(() -> server.dataPlanes().size() == 1);

    WebSocket newer = rawSocket(server.port(), "Bearer " + TOKEN);
    newer.writeTextMessage(WireCodec.encode(StreamMessage.hello("dp-same"))).await();

    await().atMost(WAIT).until(older::isClosed);
    assertThat(older.closeStatusCode()).isEqualTo((short) 1008);
    assertThat(server.dataPlanes()).containsExactly("dp-same");
    assertThat(server.syncState("shop/a").dataPlanes()).isEqualTo(1);
    assertThat(newer.isClosed()).isFalse();
  }

  @Test
  void removalIsSentAndReplayedToDataPlanesThatWereAway() {
    ControlPlaneServer server = server(0);
    server.publish(pool("shop/a", 1, 1.0));
    server.publish(pool("shop/b", 1, 1.0));
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient c1 = client(server.port(), "dp-1", applier);
    await().atMost(WAIT).until(() -> applier.current.size() == 2);

    long v = server.remove("shop/a");
    assertThat(v).isGreaterThan(1);
    await().atMost(WAIT).until(() -> !applier.current.containsKey("shop/a"));
    await().atMost(WAIT).until(() -> server.syncState("shop/a").synced());

    // dp-2 had shop/b and is away while shop/b is removed; on reconnect it drops it.
    RecordingApplier away = new RecordingApplier();
    ControlPlaneClient c2 = client(server.port(), "dp-2", away);
    await().atMost(WAIT).until(() -> away.current.containsKey("shop/b"));
    c2.stop().await();
    clients.remove(c2);
    long removed = server.remove("shop/b");
    ControlPlaneClient c2again =
        new ControlPlaneClient(
            vertx,
            ControlPlaneClient.Options.of("127.0.0.1", server.port(), TOKEN, "dp-2"),
            away,
            new Random(2));
    clients.add(c2again);
    c2again.start();
    await().atMost(WAIT).until(() -> away.calls.contains("remove shop/b " + removed));
    assertThat(away.current).doesNotContainKey("shop/b");
    assertThat(c1.connected()).isTrue();
  }

  @Test
  void aDataPlaneCannotInjectSnapshots() {
    ControlPlaneServer server = server(0);
    RecordingApplier honest = new RecordingApplier();
    client(server.port(), "dp-honest", honest);
    await().atMost(WAIT).until(() -> server.dataPlanes().size() == 1);

    WebSocket rogue = rawSocket(server.port(), "Bearer " + TOKEN);
    List<String> received = new CopyOnWriteArrayList<>();
    rogue.textMessageHandler(received::add);
    rogue.writeTextMessage(WireCodec.encode(StreamMessage.hello("rogue"))).await();
    await().atMost(WAIT).until(() -> server.dataPlanes().size() == 2);
    rogue
        .writeTextMessage(WireCodec.encode(StreamMessage.snapshot(pool("shop/evil", 99, 1.0))))
        .await();

    await().atMost(WAIT).until(rogue::isClosed);
    assertThat(rogue.closeStatusCode()).isEqualTo((short) 1008);
    assertThat(server.latestVersion("shop/evil")).isZero();
    assertThat(server.dataPlanes()).containsExactly("dp-honest");
    // The honest data plane still works and never saw the injected pool.
    server.publish(pool("shop/real", 1, 1.0));
    await().atMost(WAIT).until(() -> honest.current.containsKey("shop/real"));
    assertThat(honest.current).doesNotContainKey("shop/evil");
    assertThat(received).isEmpty();
  }

  @Test
  void malformedFramesCloseOnlyThatConnection() {
    ControlPlaneServer server = server(0);
    RecordingApplier honest = new RecordingApplier();
    ControlPlaneClient client = client(server.port(), "dp-honest", honest);
    await().atMost(WAIT).until(client::connected);

    WebSocket garbage = rawSocket(server.port(), "Bearer " + TOKEN);
    garbage.writeTextMessage("{this is not json").await();
    await().atMost(WAIT).until(garbage::isClosed);
    assertThat(garbage.closeStatusCode()).isEqualTo((short) 1007);

    WebSocket binary = rawSocket(server.port(), "Bearer " + TOKEN);
    binary.writeBinaryMessage(io.vertx.core.buffer.Buffer.buffer(new byte[] {1, 2, 3})).await();
    await().atMost(WAIT).until(binary::isClosed);
    assertThat(binary.closeStatusCode()).isEqualTo((short) 1003);

    // A snapshot smuggled inside an "answers" frame is refused like a bare one.
    WebSocket smuggler = rawSocket(server.port(), "Bearer " + TOKEN);
    smuggler.writeTextMessage(WireCodec.encode(StreamMessage.hello("smuggler"))).await();
    smuggler
        .writeTextMessage(
            WireCodec.encode(
                StreamMessage.answers(
                    List.of(
                        StreamMessage.ack("shop/a", 1),
                        StreamMessage.snapshot(pool("shop/evil", 9, 1.0))))))
        .await();
    await().atMost(WAIT).until(smuggler::isClosed);
    assertThat(smuggler.closeStatusCode()).isEqualTo((short) 1008);
    assertThat(server.latestVersion("shop/evil")).isZero();

    WebSocket ackFirst = rawSocket(server.port(), "Bearer " + TOKEN);
    ackFirst.writeTextMessage(WireCodec.encode(StreamMessage.ack("shop/a", 1))).await();
    await().atMost(WAIT).until(ackFirst::isClosed);

    server.publish(pool("shop/a", 1, 1.0));
    await().atMost(WAIT).until(() -> server.syncState("shop/a").synced());
    assertThat(server.dataPlanes()).containsExactly("dp-honest");
  }

  @Test
  void olderVersionsAreNeitherPublishedNorApplied() {
    ControlPlaneServer server = server(0);
    assertThat(server.publish(pool("shop/a", 5, 1.0))).isTrue();
    assertThat(server.publish(pool("shop/a", 3, 1.0))).isFalse();
    assertThat(server.publish(pool("shop/a", 5, 1.0))).isFalse();
    assertThat(server.latestVersion("shop/a")).isEqualTo(5);
    long next = server.nextVersion("shop/a");
    assertThat(next).isGreaterThan(5).isGreaterThanOrEqualTo(System.currentTimeMillis() - 60_000);

    // The client side, against a scripted operator that misbehaves on purpose.
    List<StreamMessage> answers = new CopyOnWriteArrayList<>();
    List<String> script =
        List.of(
            WireCodec.encode(StreamMessage.snapshot(pool("shop/a", 5, 1.0))),
            WireCodec.encode(StreamMessage.snapshot(pool("shop/a", 3, 1.0))),
            WireCodec.encode(StreamMessage.snapshot(pool("shop/a", 5, 1.0))),
            WireCodec.encode(StreamMessage.snapshot(pool("shop/a", 6, -1.0))),
            "not json at all",
            WireCodec.encode(StreamMessage.remove("shop/a", 7)),
            WireCodec.encode(StreamMessage.snapshot(pool("shop/a", 6, 1.0))));
    int port =
        vertx
            .createHttpServer()
            .webSocketHandler(
                ws ->
                    ws.textMessageHandler(
                        text -> {
                          StreamMessage m = WireCodec.decode(text);
                          if (m.type() == StreamMessage.Type.hello) {
                            script.forEach(ws::writeTextMessage);
                          } else {
                            answers.add(m);
                          }
                        }))
            .listen(0, "127.0.0.1")
            .await()
            .actualPort();
    RecordingApplier applier = new RecordingApplier();
    client(port, "dp-1", applier);
    await().atMost(WAIT).until(() -> answers.size() == 6);
    assertThat(answers)
        .extracting(m -> m.type() + " " + m.version())
        .containsExactly("ack 5", "nack 3", "ack 5", "nack 6", "ack 7", "nack 6");
    assertThat(answers.get(1).error()).contains("older than the applied version 5");
    assertThat(answers.get(5).error()).contains("older than the applied version 7");
    assertThat(applier.calls).containsExactly("apply shop/a 5", "remove shop/a 7");
  }

  @Test
  void syncListenerFiresOnConnectAckNackAndDisconnect() {
    ControlPlaneServer server = server(0);
    server.publish(pool("shop/a", 1, 1.0));
    List<String> changes = new CopyOnWriteArrayList<>();
    server.onSyncChange(changes::add);
    RecordingApplier applier = new RecordingApplier();
    ControlPlaneClient client = client(server.port(), "dp-1", applier);
    await().atMost(WAIT).until(() -> server.syncState("shop/a").synced());
    int afterConnectAndAck = changes.size();
    assertThat(afterConnectAndAck).isGreaterThanOrEqualTo(2); // connect (0/1), ack (1/1)

    server.publish(pool("shop/a", 2, 9.0));
    await().atMost(WAIT).until(() -> !server.syncState("shop/a").nacks().isEmpty());
    assertThat(changes).hasSize(afterConnectAndAck + 1);

    client.stop().await();
    clients.remove(client);
    await().atMost(WAIT).until(() -> server.syncState("shop/a").dataPlanes() == 0);
    assertThat(changes).hasSize(afterConnectAndAck + 2).containsOnly("shop/a");
  }

  @Test
  void tlsPortAcceptsOnlyClientsThatTrustItsCertificate() throws IOException {
    TlsMaterial tls =
        new TlsMaterial(resource("tls/controlplane.crt"), resource("tls/controlplane.key"));
    ControlPlaneServer server =
        server(new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN).withTls(tls));
    server.publish(pool("shop/a", 1, 1.0));

    RecordingApplier trusting = new RecordingApplier();
    client(
        ControlPlaneClient.Options.of("127.0.0.1", server.port(), TOKEN, "dp-tls")
            .withTrustPem(resource("tls/controlplane.crt")),
        trusting);
    await().atMost(WAIT).until(() -> trusting.current.containsKey("shop/a"));

    RecordingApplier wrongTrust = new RecordingApplier();
    ControlPlaneClient mistrusting =
        client(
            ControlPlaneClient.Options.of("127.0.0.1", server.port(), TOKEN, "dp-other")
                .withTrustPem(resource("tls/other-ca.crt")),
            wrongTrust);
    await().atMost(WAIT).until(() -> mistrusting.lastError() != null);
    await().during(200, TimeUnit.MILLISECONDS).until(() -> !mistrusting.connected());
    assertThat(wrongTrust.calls).isEmpty();
    assertThat(server.dataPlanes()).containsExactly("dp-tls");
    assertThat(tls.toString()).doesNotContain("PRIVATE");
  }

  /**
   * Mutual TLS. The test PEMs under {@code tls/}: {@code client-ca.crt} signs {@code client.crt}
   * (CN dp-mtls, extendedKeyUsage clientAuth); {@code other-client.crt} is signed by another CA
   * whose key was thrown away. EC P-256, 100 years, made with openssl (genpkey, req -x509, x509
   * -req); the CA keys are not kept.
   */
  @Test
  void mutualTlsAcceptsOnlyClientsWithACertificateSignedByTheClientCa() throws IOException {
    TlsMaterial tls =
        new TlsMaterial(resource("tls/controlplane.crt"), resource("tls/controlplane.key"));
    ControlPlaneServer server =
        server(
            new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
                .withTls(tls)
                .withClientCa(resource("tls/client-ca.crt")));
    server.publish(pool("shop/a", 1, 1.0));
    int port = server.port();
    ControlPlaneClient.Options trusting =
        ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-mtls")
            .withTrustPem(resource("tls/controlplane.crt"));

    RecordingApplier good = new RecordingApplier();
    ControlPlaneClient withCert =
        client(
            trusting.withClientCertificate(resource("tls/client.crt"), resource("tls/client.key")),
            good);
    await().atMost(WAIT).until(() -> good.current.containsKey("shop/a"));
    await().atMost(WAIT).until(() -> server.syncState("shop/a").synced());
    assertThat(withCert.connected()).isTrue();
    assertThat(server.dataPlanes()).containsExactly("dp-mtls");

    // No client certificate (the right token and server trust are not enough), a certificate from
    // another CA, and the right certificate with a wrong token: none gets a stream.
    List<ControlPlaneClient.Options> refused =
        List.of(
            ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-no-cert")
                .withTrustPem(resource("tls/controlplane.crt")),
            ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-other-ca")
                .withTrustPem(resource("tls/controlplane.crt"))
                .withClientCertificate(
                    resource("tls/other-client.crt"), resource("tls/other-client.key")),
            ControlPlaneClient.Options.of("127.0.0.1", port, "wrong-token", "dp-bad-token")
                .withTrustPem(resource("tls/controlplane.crt"))
                .withClientCertificate(resource("tls/client.crt"), resource("tls/client.key")));
    List<RecordingApplier> appliers = new ArrayList<>();
    List<Boolean> transitions = new CopyOnWriteArrayList<>();
    List<ControlPlaneClient> rejected = new ArrayList<>();
    for (ControlPlaneClient.Options o : refused) {
      RecordingApplier a = new RecordingApplier();
      appliers.add(a);
      rejected.add(client(o, a, transitions::add));
    }
    for (ControlPlaneClient c : rejected) {
      await().atMost(WAIT).until(() -> c.lastError() != null);
    }
    // Let each of them redial a few times (backoff 20..200 ms): still nothing.
    await()
        .during(500, TimeUnit.MILLISECONDS)
        .atMost(WAIT)
        .until(() -> rejected.stream().noneMatch(ControlPlaneClient::connected));
    assertThat(transitions).as("a refused client never counted as connected").isEmpty();
    assertThat(appliers).allSatisfy(a -> assertThat(a.calls).isEmpty());
    assertThat(rejected.get(2).lastError()).contains("401");
    assertThat(server.dataPlanes()).containsExactly("dp-mtls");
    assertThat(server.syncState("shop/a")).isEqualTo(new SyncState(1, 1, 1, List.of()));

    // Without TLS on the client, the TLS port is no plain-text back door either.
    RecordingApplier plain = new RecordingApplier();
    ControlPlaneClient plainClient =
        client(ControlPlaneClient.Options.of("127.0.0.1", port, TOKEN, "dp-plain"), plain);
    await().atMost(WAIT).until(() -> plainClient.lastError() != null);
    assertThat(plainClient.connected()).isFalse();
    assertThat(plain.calls).isEmpty();

    // The good data plane was never disturbed.
    server.publish(pool("shop/a", 2, 1.0));
    await().atMost(WAIT).until(() -> good.version("shop/a") == 2);
    assertThat(server.dataPlanes()).containsExactly("dp-mtls");
  }

  @Test
  void mutualTlsOptionsThatCannotWorkAreRefused() throws IOException {
    String ca = resource("tls/client-ca.crt");
    assertThatThrownBy(() -> new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN).withClientCa(ca))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
    ControlPlaneServer.Options mtls =
        new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)
            .withTls(new TlsMaterial(resource("tls/controlplane.crt"), "key"))
            .withClientCa(ca);
    assertThat(mtls.mutualTls()).isTrue();
    assertThat(mtls.toString()).contains("mutualTls=true").doesNotContain("BEGIN");

    ControlPlaneClient.Options plain = ControlPlaneClient.Options.of("127.0.0.1", 1, TOKEN, "dp-1");
    String cert = resource("tls/client.crt");
    String key = resource("tls/client.key");
    assertThatThrownBy(() -> plain.withClientCertificate(cert, key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
    ControlPlaneClient.Options tls = plain.withTrustPem(resource("tls/controlplane.crt"));
    assertThatThrownBy(() -> tls.withClientCertificate(cert, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("private key");
    assertThatThrownBy(() -> tls.withClientCertificate(null, key))
        .isInstanceOf(IllegalArgumentException.class);
    ControlPlaneClient.Options both = tls.withClientCertificate(cert, key);
    assertThat(both.mutualTls()).isTrue();
    assertThat(both.toString())
        .contains("mutualTls=true")
        .doesNotContain("PRIVATE")
        .doesNotContain(TOKEN);
  }
}
