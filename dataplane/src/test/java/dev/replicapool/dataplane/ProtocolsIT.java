package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What members speak and what clients speak, in every combination the data plane translates:
 * HTTP/1.1 clients of h2c members, HTTP/2 clients of h2c members, WebSocket upgrades tunnelled to
 * the member the balancer picks (with a real WebSocket client), WebSocket-only pools.
 */
class ProtocolsIT extends DataPlaneTestBase {
  static final String HOST = "proto.shop.example";

  @Test
  void anHttp11ClientReachesMembersThatSpeakOnlyHttp2() throws Exception {
    TestMember a = member("a");
    TestMember b = member("b");
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/h2c")
            .hosts(HOST)
            .appProtocol("kubernetes.io/h2c")
            .members(a.snapshot(1), b.snapshot(1)));
    var counts = sequential(dp.trafficPort(), HOST, 20);
    assertThat(counts).containsEntry("a", 10).containsEntry("b", 10);
    assertThat(a.versionsSeen).isNotEmpty().allMatch(v -> v == HttpVersion.HTTP_2);
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      RawHttp.Response r =
          c.send("POST /up HTTP/1.1\r\nHost: " + HOST + "\r\nContent-Length: 5\r\n\r\nhello");
      assertThat(r.status()).isEqualTo(200);
    }
    await()
        .atMost(WAIT)
        .until(() -> a.bodiesSeen.contains("hello") || b.bodiesSeen.contains("hello"));
  }

  @Test
  void anHttp2ClientReachesHttp2MembersAsHttp2() throws Exception {
    TestMember a = member("a");
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/h2c")
            .hosts(HOST)
            .appProtocol("kubernetes.io/h2c")
            .members(a.snapshot(1)));
    HttpClient h2 = h2PriorKnowledge(vertx);
    RequestOptions get =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(HOST)
            .setPort(80)
            .setMethod(HttpMethod.GET)
            .setURI("/track/1");
    String body =
        new OnEventLoop(vertx)
            .call(() -> h2.request(get).compose(r -> r.send()).compose(r -> r.body()))
            .await(10, TimeUnit.SECONDS)
            .toString();
    assertThat(body).contains("\"replica\":\"a\"");
    assertThat(a.versionsSeen).containsOnly(HttpVersion.HTTP_2);
    assertThat(a.headersSeen.get(0).get("via")).startsWith("2 replicapool-");
    h2.close().await();
  }

  /** A WebSocket echo member: every text frame comes back prefixed with the member's name. */
  HttpServer echo(String name, AtomicInteger open) {
    return vertx
        .createHttpServer()
        .webSocketHandler(
            ws -> {
              open.incrementAndGet();
              ws.closeHandler(v -> open.decrementAndGet());
              ws.textMessageHandler(t -> ws.writeTextMessage(name + ":" + t));
            })
        .requestHandler(r -> r.response().setStatusCode(400).end("websocket only"))
        .listen(0, "127.0.0.1")
        .await();
  }

  /**
   * The WebSocket tests' set-up: members a and b, echoes counting their open sockets, both in pool
   * shop/ws of a data plane that drains for 300 ms, and a WebSocket client of /chat through it.
   */
  private final class EchoPool {
    final AtomicInteger openAtA = new AtomicInteger();
    final AtomicInteger openAtB = new AtomicInteger();
    final HttpServer a = echo("a", openAtA);
    final HttpServer b = echo("b", openAtB);
    final MemberSnapshot ma;
    final MemberSnapshot mb;
    final WebSocketClient client;
    final WebSocketConnectOptions chat;

    EchoPool() throws Exception {
      startDataPlane(settings().withDrainMillis(300));
      ma = new MemberSnapshot("127.0.0.1", a.actualPort(), 1, MemberState.Healthy);
      mb = new MemberSnapshot("127.0.0.1", b.actualPort(), 1, MemberState.Healthy);
      publish(SnapshotBuilder.pool("shop/ws").hosts(HOST).members(ma, mb));
      client = vertx.createWebSocketClient();
      chat =
          new WebSocketConnectOptions()
              .setHost("127.0.0.1")
              .setPort(dp.trafficPort())
              .setURI("/chat")
              .addHeader("host", HOST);
    }

    /** A WebSocket to the pool through the data plane, once upgraded. */
    WebSocket connect() throws Exception {
      return new OnEventLoop(vertx).call(() -> client.connect(chat)).await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWebSocketIsTunnelledAndClosedAfterTheDrainWhenItsMemberLeaves() throws Exception {
    EchoPool echoes = new EchoPool();
    WebSocket first = echoes.connect();
    WebSocket second = echoes.connect();
    CompletableFuture<String> answer = new CompletableFuture<>();
    first.textMessageHandler(answer::complete);
    first.writeTextMessage("hello");
    assertThat(answer.get(5, TimeUnit.SECONDS)).isIn("a:hello", "b:hello");
    // the balancer spread the two upgrades; each open tunnel is in flight on its member
    assertThat(echoes.openAtA.get()).isEqualTo(1);
    assertThat(echoes.openAtB.get()).isEqualTo(1);
    assertThat(inflight(echoes.a.actualPort())).isEqualTo(1);

    CompletableFuture<Void> firstClosed = new CompletableFuture<>();
    CompletableFuture<Void> secondClosed = new CompletableFuture<>();
    WebSocket atA = answer.get().startsWith("a") ? first : second;
    WebSocket atB = atA == first ? second : first;
    atA.closeHandler(v -> firstClosed.complete(null));
    atB.closeHandler(v -> secondClosed.complete(null));
    long removed = System.nanoTime();
    publish(SnapshotBuilder.pool("shop/ws").hosts(HOST).members(echoes.mb)); // a leaves the pool
    firstClosed.get(5, TimeUnit.SECONDS);
    long closedAfterMillis = (System.nanoTime() - removed) / 1_000_000;
    assertThat(closedAfterMillis).isGreaterThanOrEqualTo(250);
    assertThat(secondClosed).isNotDone(); // b's tunnel stays
    CompletableFuture<String> stillThere = new CompletableFuture<>();
    atB.textMessageHandler(stillThere::complete);
    atB.writeTextMessage("still");
    assertThat(stillThere.get(5, TimeUnit.SECONDS)).isEqualTo("b:still");
    await().atMost(WAIT).until(() -> echoes.openAtA.get() == 0);
    System.out.println(
        "FIGURE websocket tunnel of a removed member closed after "
            + closedAfterMillis
            + " ms (drain 300 ms)");
    echoes.client.close().await();
  }

  /**
   * A WebSocket echo held while another member of the pool is stopped and leaves the pool: every
   * message of the held tunnel is answered. 5 s here; {@code -Dws.holdSeconds=60} for the figure.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 5, unit = TimeUnit.MINUTES) // with -Dws.holdSeconds=60
  void aWebSocketIsHeldWhileAnotherMemberIsKilled() throws Exception {
    EchoPool echoes = new EchoPool();
    java.util.List<WebSocket> sockets = new java.util.ArrayList<>();
    for (int i = 0; i < 2; i++) {
      sockets.add(echoes.connect());
    }
    java.util.concurrent.LinkedBlockingQueue<String> answers =
        new java.util.concurrent.LinkedBlockingQueue<>();
    sockets.forEach(ws -> ws.textMessageHandler(answers::add));
    WebSocket held = null;
    for (WebSocket ws : sockets) {
      ws.writeTextMessage("who");
      if (answers.poll(5, TimeUnit.SECONDS).startsWith("a:")) {
        held = ws;
      }
    }
    assertThat(held).as("one tunnel on member a").isNotNull();
    int seconds = Integer.getInteger("ws.holdSeconds", 5);
    int messages = seconds * 10;
    int answered = 0;
    for (int i = 0; i < messages; i++) {
      if (i == messages / 3) {
        echoes.b.close().await(); // member b stops: its own tunnel ends, a's must not notice
        publish(SnapshotBuilder.pool("shop/ws").hosts(HOST).members(echoes.ma));
      }
      held.writeTextMessage("m" + i);
      String answer = answers.poll(5, TimeUnit.SECONDS);
      if (("a:m" + i).equals(answer)) {
        answered++;
      }
      Thread.sleep(100); // the client's pace (the stimulus), not a wait for a condition
    }
    System.out.println(
        "FIGURE websocket echo held "
            + seconds
            + " s while another member was stopped: "
            + answered
            + " of "
            + messages
            + " messages answered");
    assertThat(answered).isEqualTo(messages);
    echoes.client.close().await();
  }

  @Test
  void aWebSocketOnlyPoolRefusesPlainRequestsWith426() throws Exception {
    TestMember a = member("a");
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/ws")
            .hosts(HOST)
            .appProtocol("kubernetes.io/ws")
            .members(a.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get(HOST, "/plain").status()).isEqualTo(426);
    }
    assertThat(a.heads.get()).isZero();
  }

  private int inflight(int port) throws Exception {
    var members = poolStatus("shop/ws").getJsonArray("members");
    for (int i = 0; i < members.size(); i++) {
      if (members.getJsonObject(i).getString("address").endsWith(":" + port)) {
        return members.getJsonObject(i).getInteger("inflight");
      }
    }
    return -1;
  }
}
