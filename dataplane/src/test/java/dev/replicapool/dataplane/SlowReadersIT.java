package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

  @Test
  void http2StreamsGrantingAFewBytesAtATimeAreCutAsStalled() throws Exception {
    dribbleIsCut(HOST, "shop/slow");
  }

  @Test
  void http2StreamsToAnH2cPoolGrantingAFewBytesAtATimeAreCutAsStalled() throws Exception {
    dribbleIsCut(H2C_HOST, "shop/slow-h2c");
  }

  /**
   * A client that opens 16 bytes of window every 100 ms takes a few bytes now and then: the idle
   * clock restarts only once it took all the answer waiting for it (the stream writable again), so
   * it is cut as stalled at the idle timeout, its member not blamed. A client that opens 64 KiB
   * every 100 ms (640 KiB/s, a slow link) keeps its answer for 6 idle timeouts.
   */
  void dribbleIsCut(String host, String pool) throws Exception {
    Dribble slow = dribble(host, 16, 3_000);
    System.out.println("FIGURE dribbling 16 B / 100 ms to " + pool + ": " + slow);
    assertThat(slow.reset).as("the stream was reset (CANCEL)").isEqualTo(CANCEL);
    assertThat(slow.data).as("it took only its dribble").isLessThan(1024);
    assertMembersNotBlamed(pool, host, "h2", "answer", 1);
    Dribble reading = dribble(host, 65_536, 3_000);
    System.out.println("FIGURE dribbling 64 KiB / 100 ms to " + pool + ": " + reading);
    assertThat(reading.reset).as("a slow reader that reads is not cut").isNull();
    assertThat(reading.data).as("it took its windows' worth").isGreaterThan(1L << 20);
  }

  /** What a dribbling stream got: its status, its DATA bytes, its reset code and when (ms). */
  record Dribble(String status, long data, Integer reset, long resetAfterMillis) {}

  /**
   * One stream asking for a large answer on a connection whose streams start with a window of 0;
   * every 100 ms the client opens {@code grant} more bytes on the stream and the connection, for
   * {@code forMillis} or until the stream is reset.
   */
  Dribble dribble(String host, int grant, long forMillis) throws Exception {
    Socket s = client(0);
    var out = s.getOutputStream();
    out.write(RawH2Frames.preface());
    out.write(frame(0x4, 0, 0, new byte[] {0, 0x4, 0, 0, 0, 0})); // INITIAL_WINDOW_SIZE 0
    out.write(frame(0x1, 0x5, 1, RawH2Frames.request(host, "/big/dribble")));
    out.flush();
    byte[] increment = ByteBuffer.allocate(4).putInt(grant).array();
    ScheduledExecutorService grants = Executors.newSingleThreadScheduledExecutor();
    grants.scheduleAtFixedRate(
        () -> {
          try {
            out.write(frame(0x8, 0, 1, increment));
            out.write(frame(0x8, 0, 0, increment));
            out.flush();
          } catch (IOException closed) {
            // the stream's connection is gone; the reader below sees it
          }
        },
        100,
        100,
        TimeUnit.MILLISECONDS);
    DataInputStream in = new DataInputStream(s.getInputStream());
    DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false);
    long start = System.nanoTime();
    long end = start + forMillis * 1_000_000L;
    String status = null;
    long data = 0;
    try {
      while (System.nanoTime() < end) {
        s.setSoTimeout((int) Math.max(1, (end - System.nanoTime()) / 1_000_000L));
        RawH2Frames.Frame f = RawH2Frames.read(in);
        if (f.stream() != 1) {
          continue;
        } else if (f.type() == 0x1) {
          status =
              String.valueOf(hpack.decodeHeaders(1, Unpooled.wrappedBuffer(f.payload())).status());
        } else if (f.type() == 0x0) {
          data += f.payload().length;
        } else if (f.type() == RST_STREAM) {
          long ms = (System.nanoTime() - start) / 1_000_000L;
          return new Dribble(status, data, ByteBuffer.wrap(f.payload()).getInt(), ms);
        }
      }
    } catch (SocketTimeoutException over) {
      // its time is up with the stream still open
    } finally {
      grants.shutdownNow();
      s.close();
    }
    return new Dribble(status, data, null, -1);
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
    out.write(RawH2Frames.preface());
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
