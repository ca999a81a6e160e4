package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.vertx.core.Promise;
import io.vertx.core.http.WebSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Clients of the stream port that hold it open or send too much: each gets closed, saying why. */
class HostileStreamTest extends StreamTestBase {

  /**
   * Connections that trickle the handshake's headers a byte every 400 ms reset the read idle
   * timeout with each byte; the deadline from the connection's start closes them all the same.
   */
  @Test
  void aHandshakeTrickledByteByByteIsClosedAtTheHeadDeadline() throws Exception {
    int port = server(new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)).port();
    List<Socket> open = new ArrayList<>();
    long start = System.nanoTime();
    try {
      for (int i = 0; i < 5; i++) {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(1);
        s.getOutputStream()
            .write(
                ("GET " + ControlPlaneProtocol.STREAM_PATH + " HTTP/1.1\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
        open.add(s);
      }
      while (!open.isEmpty() && elapsedMillis(start) < 3 * HeadDeadline.MILLIS) {
        TimeUnit.MILLISECONDS.sleep(400); // the attack's own pace, not a wait for an outcome
        open.removeIf(s -> !trickle(s));
      }
      long millis = elapsedMillis(start);
      assertThat(open).as("still open after %d ms", millis).isEmpty();
      assertThat(millis).isBetween(HeadDeadline.MILLIS - 500, HeadDeadline.MILLIS + 2_000);
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /** One more header byte; false once the server closed the connection. */
  private static boolean trickle(Socket s) {
    try {
      OutputStream out = s.getOutputStream();
      out.write('X');
      out.flush();
      InputStream in = s.getInputStream();
      try {
        return in.read() >= 0;
      } catch (SocketTimeoutException e) {
        return true;
      }
    } catch (IOException e) {
      return false;
    }
  }

  private static long elapsedMillis(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  @Test
  void aMessageOverTheSizeLimitClosesTheConnectionWith1009() throws Exception {
    int port = server(new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN)).port();
    WebSocket ws = rawSocket(port, "Bearer " + TOKEN);
    Promise<Short> closed = Promise.promise();
    ws.closeHandler(v -> closed.tryComplete(ws.closeStatusCode()));
    ws.writeTextMessage("{\"type\":\"hello\",\"node\":\"big\"}");
    ws.writeTextMessage("x".repeat(ControlPlaneProtocol.MAX_FRAME_BYTES + 1));
    Short code = closed.future().await(10, TimeUnit.SECONDS);
    assertThat(code).as("1009: message too big (RFC 6455 7.4.1)").isEqualTo((short) 1009);
  }
}
