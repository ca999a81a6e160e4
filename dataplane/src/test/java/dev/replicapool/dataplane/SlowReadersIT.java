package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
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
class SlowReadersIT extends DataPlaneTestBase {
  static final String HOST = "slow.example";
  static final String H2C_HOST = "slow-h2c.example";
  static final String PATIENT_HOST = "patient-h2c.example";
  static final long IDLE_MILLIS = 500;

  TestMember m1;
  TestMember m2;
  final List<Socket> attackers = new ArrayList<>();

  @BeforeEach
  void servePool() {
    // One event loop: every client's streams to a member share one member connection.
    startDataPlane(settings().withInstances(1));
    m1 = member("m1");
    m2 = member("m2");
    publish(
        SnapshotBuilder.pool("shop/slow")
            .hosts(HOST)
            .timeouts(null, null, IDLE_MILLIS)
            .outlier(2, 60_000)
            .members(m1.snapshot(1), m2.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/slow-h2c")
            .hosts(H2C_HOST)
            .appProtocol("kubernetes.io/h2c")
            .timeouts(null, null, IDLE_MILLIS)
            .outlier(2, 60_000)
            .members(m1.snapshot(1), m2.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/patient-h2c")
            .hosts(PATIENT_HOST)
            .appProtocol("kubernetes.io/h2c")
            .timeouts(null, null, 60_000L)
            .members(m1.snapshot(1), m2.snapshot(1)));
  }

  @AfterEach
  void closeAttackers() throws IOException {
    for (Socket s : attackers) {
      s.close();
    }
  }

  @Test
  void anHttp1ClientThatStopsReadingIsCutOffAndItsMemberIsNotBlamed() throws Exception {
    List<Socket> readers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Socket s = attacker();
      s.getOutputStream()
          .write(
              ("GET /big/" + i + " HTTP/1.1\r\nHost: " + HOST + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      readers.add(s);
    }
    awaitMembersHeld(6);
    assertMembersNotBlamed("shop/slow", "http1", 6);
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
    Socket s = zeroWindowAttack(PATIENT_HOST);
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
    s.close();
  }

  void zeroWindowStreams(String host, String pool) throws Exception {
    Socket s = zeroWindowAttack(host);
    awaitMembersHeld(6);
    assertMembersNotBlamed(pool, "h2", 6);
    assertThat(resetsRead(s, 6))
        .as("each stalled stream reset with CANCEL, the connection kept")
        .containsOnlyKeys(1, 3, 5, 7, 9, 11)
        .containsValues(0x8);
  }

  /** Six streams asking for large answers on a connection whose streams' windows are 0. */
  Socket zeroWindowAttack(String host) throws IOException {
    Socket s = attacker();
    var out = s.getOutputStream();
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    out.write(frame(0x4, 0, 0, new byte[] {0, 0x4, 0, 0, 0, 0})); // INITIAL_WINDOW_SIZE 0
    for (int id = 1; id <= 11; id += 2) {
      out.write(frame(0x1, 0x5, id, RawH2Frames.request(host, "/big/" + id)));
    }
    out.flush();
    return s;
  }

  // ------------------------------------------------------------------------------------------

  Socket attacker() throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096); // a reader that does not read: the proxy's writes back up
    s.connect(new InetSocketAddress("127.0.0.1", dp.trafficPort()));
    s.setSoTimeout(20_000);
    attackers.add(s);
    return s;
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

  /**
   * After the idle timeout the stalled tries are over, no member was counted failed or ejected, and
   * a client that reads gets answers from both members.
   */
  void assertMembersNotBlamed(String pool, String protocol, int stalled) throws Exception {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metric("replicapool_member_inflight", "pool=\"" + pool + "\""))
                    .isZero());
    assertThat(
            metric(
                "replicapool_client_stalled_total",
                "pool=\"" + pool + "\",protocol=\"" + protocol + "\",side=\"answer\""))
        .as("answers cut because their client would not read, counted")
        .isEqualTo(stalled);
    assertThat(metric("replicapool_ejections_total", "pool=\"" + pool + "\""))
        .as("members ejected because clients would not read")
        .isZero();
    assertThat(metric("replicapool_upstream_seconds_count", "outcome=\"timeout\""))
        .as("tries counted as member timeouts")
        .isZero();
    String host = pool.equals("shop/slow") ? HOST : H2C_HOST;
    Map<String, Integer> answers = sequential(dp.trafficPort(), host, 20);
    assertThat(answers).containsOnlyKeys("m1", "m2");
  }

  /**
   * Reads the attacker's frames (its window of 0 holds back every DATA frame) until {@code n}
   * streams were reset; the RST_STREAM error code by stream.
   */
  static Map<Integer, Integer> resetsRead(Socket s, int n) throws IOException {
    java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
    Map<Integer, Integer> resets = new java.util.TreeMap<>();
    while (resets.size() < n) {
      int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
      int type = in.readUnsignedByte();
      in.readUnsignedByte();
      int stream = in.readInt() & 0x7fffffff;
      byte[] payload = in.readNBytes(length);
      if (type == 0x3) {
        resets.put(stream, java.nio.ByteBuffer.wrap(payload).getInt());
      }
      assertThat(type).as("no GOAWAY: the connection is not the stall's").isNotEqualTo(0x7);
    }
    return resets;
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
