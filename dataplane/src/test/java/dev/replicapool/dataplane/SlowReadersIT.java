package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Clients that ask for large answers and do not read them: an HTTP/1.1 client that stops reading,
 * and HTTP/2 clients that open every stream with a receive window of 0 (zero-window) or grant a few
 * bytes at a time (slow read). The data plane must stop reading the member while the client cannot
 * take more (its memory stays bounded), must cut the stalled answer after the pool's idle timeout,
 * and must not take the client's stall for the member's: a member is never counted failed nor
 * ejected because its client would not read, so that slow readers cannot empty a pool.
 */
class SlowReadersIT extends StalledClientsBase {
  static final String HOST = "slow.example";
  static final String H2C_HOST = "slow-h2c.example";
  static final String PATIENT_HOST = "patient-h2c.example";

  @BeforeEach
  void servePools() {
    publishPool("shop/slow", HOST, null, IDLE_MILLIS);
    publishPool("shop/slow-h2c", H2C_HOST, "kubernetes.io/h2c", IDLE_MILLIS);
    publishPool("shop/patient-h2c", PATIENT_HOST, "kubernetes.io/h2c", 60_000);
  }

  @Test
  void anHttp1ClientThatStopsReadingIsCutOffAndItsMemberIsNotBlamed() throws Exception {
    List<Socket> readers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Socket s = reader();
      s.getOutputStream()
          .write(
              ("GET /big/" + i + " HTTP/1.1\r\nHost: " + HOST + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      readers.add(s);
    }
    awaitMembersHeld(6);
    assertMembersNotBlamed("shop/slow", HOST, "http1", "answer", 6);
    for (Socket s : readers) {
      long read = drainUntilClosed(s);
      assertThat(read).as("the answer was cut, not all sent").isLessThan(m1.bigAnswerBytes);
    }
  }

  @Test
  void http2StreamsWithAZeroWindowAreResetAndTheirMembersAreNotBlamed() throws Exception {
    zeroWindowStreams(HOST, "shop/slow");
  }

  @Test
  void http2StreamsWithAZeroWindowToAnH2cPoolAreResetAndTheirMembersAreNotBlamed()
      throws Exception {
    zeroWindowStreams(H2C_HOST, "shop/slow-h2c");
  }

  @Test
  void aStalledStreamDoesNotHoldOtherClientsStreamsOnItsMemberConnection() throws Exception {
    zeroWindowAttack(PATIENT_HOST);
    awaitMembersHeld(6);
    // The stalled streams stay for the pool's minute of idle timeout; meanwhile another client's
    // requests go over the same member connections.
    long start = System.nanoTime();
    Map<String, Integer> answers = sequential(dp.trafficPort(), PATIENT_HOST, 20);
    long ms = (System.nanoTime() - start) / 1_000_000;
    System.out.println("FIGURE beside 6 stalled streams: 20 requests in " + ms + " ms");
    assertThat(answers).containsOnlyKeys("m1", "m2");
    assertThat(metric("replicapool_member_inflight", "pool=\"shop/patient-h2c\""))
        .as("the stalled streams are still out")
        .isEqualTo(6);
  }

  void zeroWindowStreams(String host, String pool) throws Exception {
    Socket s = zeroWindowAttack(host);
    awaitMembersHeld(6);
    assertMembersNotBlamed(pool, host, "h2", "answer", 6);
    assertThat(streamsRead(s, 6))
        .as("each stalled stream answered, then reset with CANCEL; the connection kept")
        .containsOnlyKeys(1, 3, 5, 7, 9, 11)
        .allSatisfy((id, got) -> assertThat(got).containsExactly("200", "reset " + CANCEL));
  }

  /** Six streams asking for large answers on a connection whose streams' windows are 0. */
  Socket zeroWindowAttack(String host) throws IOException {
    Socket s = reader();
    var out = s.getOutputStream();
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    out.write(frame(0x4, 0, 0, new byte[] {0, 0x4, 0, 0, 0, 0})); // INITIAL_WINDOW_SIZE 0
    for (int id = 1; id <= 11; id += 2) {
      out.write(frame(0x1, 0x5, id, RawH2Frames.request(host, "/big/" + id)));
    }
    out.flush();
    return s;
  }

  /** A reader that does not read: the proxy's writes back up. */
  Socket reader() throws IOException {
    return client(4096);
  }

  /**
   * Every stalled answer has begun and the members' writes are held (what they wrote stops
   * growing), and far less than the answers' length was read from them. The kernel's socket buffers
   * between member and client take some tens of MB per connection (tcp_rmem's maximum is 32 MB
   * here), so the answers are 128 MB: a proxy that kept reading would have read them whole.
   */
  void awaitMembersHeld(int answers) throws Exception {
    await().atMost(WAIT).until(() -> m1.heads.get() + m2.heads.get() == answers);
    long[] last = {-1};
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              long now = m1.bigBytesWritten.get() + m2.bigBytesWritten.get();
              boolean still = now == last[0];
              last[0] = now;
              return still;
            });
    long written = m1.bigBytesWritten.get() + m2.bigBytesWritten.get();
    System.out.println(
        "FIGURE slow readers: "
            + answers
            + " stalled answers, members wrote "
            + written
            + " bytes");
    assertThat(written)
        .as("the proxy stopped reading the members while its clients could not take more")
        .isLessThan((long) answers * m1.bigAnswerBytes / 2);
  }

  /** Reads what is left until the data plane closes the connection; the bytes read. */
  static long drainUntilClosed(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    byte[] buf = new byte[65536];
    long total = 0;
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        total += n;
      }
    } catch (SocketException reset) {
      // closed with unread bytes: a reset ends the reading as a close does
    } catch (SocketTimeoutException open) {
      throw new AssertionError("the stalled client's connection is still open after 20 s", open);
    }
    return total;
  }
}
