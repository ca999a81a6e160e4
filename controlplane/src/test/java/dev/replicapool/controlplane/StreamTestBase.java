package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of the real stream ({@link ControlPlaneStreamTest}, {@link
 * ControlPlaneGroupsTest}) start with: a Vert.x of their own, servers and clients that are stopped
 * after each test, and raw WebSockets to a server's stream path.
 */
abstract class StreamTestBase {
  static final String TOKEN = "s3cret-token";
  static final Duration WAIT = Duration.ofSeconds(10);

  Vertx vertx;
  final List<ControlPlaneClient> clients = new ArrayList<>();
  final List<ControlPlaneServer> servers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() {
    clients.forEach(c -> c.stop().await());
    servers.forEach(s -> s.stop().await());
    vertx.close().await();
  }

  /** A started server, stopped after the test. */
  ControlPlaneServer server(ControlPlaneServer.Options options) {
    ControlPlaneServer s = new ControlPlaneServer(vertx, options);
    s.start().await();
    servers.add(s);
    return s;
  }

  /** A started client with a quick backoff, stopped after the test. */
  ControlPlaneClient client(ControlPlaneClient.Options options, SnapshotApplier applier) {
    return client(options, applier, connected -> {});
  }

  /**
   * A started client whose connection changes go to {@code changes} from before it starts, so that
   * its first connect is never missed.
   */
  ControlPlaneClient client(
      ControlPlaneClient.Options options, SnapshotApplier applier, Consumer<Boolean> changes) {
    ControlPlaneClient c =
        new ControlPlaneClient(vertx, options.withBackoff(20, 200), applier, new Random(1));
    c.onConnectionChange(changes);
    clients.add(c);
    c.start();
    return c;
  }

  /** A WebSocket to the stream path, with this Authorization header unless it is null. */
  WebSocket rawSocket(int port, String authorization) {
    WebSocketConnectOptions o =
        new WebSocketConnectOptions()
            .setHost("127.0.0.1")
            .setPort(port)
            .setURI(ControlPlaneProtocol.STREAM_PATH);
    if (authorization != null) {
      o.putHeader(ControlPlaneProtocol.AUTHORIZATION, authorization);
    }
    WebSocketClient wsc = vertx.createWebSocketClient();
    return new OnEventLoop(vertx).call(() -> wsc.connect(o)).await();
  }

  /** A file of the test resources, as text. */
  static String resource(String name) throws IOException {
    try (InputStream in = StreamTestBase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
