package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Clients that start a request and never finish it: HTTP/1.1 connections that send 10 of a body's
 * 100 bytes, and HTTP/2 streams left open after their headers and 10 bytes of DATA ("many idle
 * streams"), to an {@code http} pool and to an h2c pool. The members wait for the rest, as a server
 * reading a request body does; the silence that follows is the client's. After the pool's idle
 * timeout each such request is answered 408 (the HTTP/1.1 connection closed) and counted as the
 * client's stall; no member is counted failed or ejected, so that clients that never finish their
 * requests cannot empty a pool.
 */
class SlowSendersIT extends DataPlaneTestBase {
  static final String HOST = "upload.example";
  static final String H2C_HOST = "upload-h2c.example";
  static final long IDLE_MILLIS = 500;

  TestMember m1;
  TestMember m2;
  final List<Socket> clients = new ArrayList<>();

  @BeforeEach
  void servePools() {
    startDataPlane();
    m1 = member("m1");
    m2 = member("m2");
    publish(
        SnapshotBuilder.pool("shop/upload")
            .hosts(HOST)
            .timeouts(null, null, IDLE_MILLIS)
            .outlier(2, 60_000)
            .members(m1.snapshot(1), m2.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/upload-h2c")
            .hosts(H2C_HOST)
            .appProtocol("kubernetes.io/h2c")
            .timeouts(null, null, IDLE_MILLIS)
            .outlier(2, 60_000)
            .members(m1.snapshot(1), m2.snapshot(1)));
  }

  @AfterEach
  void closeClients() throws IOException {
    for (Socket s : clients) {
      s.close();
    }
  }

  @Test
  void http1RequestsWhoseBodyStopsAreAnswered408AndTheirMembersAreNotBlamed() throws Exception {
    List<RawHttp> stalled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      RawHttp c = RawHttp.connect(dp.trafficPort());
      clients.add(c.socket());
      c.socket()
          .getOutputStream()
          .write(
              ("POST /up/"
                      + i
                      + " HTTP/1.1\r\nHost: "
                      + HOST
                      + "\r\nContent-Length: 100\r\n\r\n"
                      + "0123456789")
                  .getBytes(StandardCharsets.US_ASCII));
      stalled.add(c);
    }
    await().atMost(WAIT).until(() -> m1.heads.get() + m2.heads.get() == 6);
    for (RawHttp c : stalled) {
      assertThat(c.read().status()).as("the unfinished request's answer").isEqualTo(408);
      assertThat(c.closedByPeer()).as("its connection closed after the 408").isTrue();
    }
    assertMembersNotBlamed("shop/upload", HOST, "http1", 6);
  }

  @Test
  void http2StreamsLeftOpenToAnHttpPoolAreAnswered408AndTheirMembersAreNotBlamed()
      throws Exception {
    idleStreams(HOST, "shop/upload");
  }

  @Test
  void http2StreamsLeftOpenToAnH2cPoolAreAnswered408AndTheirMembersAreNotBlamed() throws Exception {
    idleStreams(H2C_HOST, "shop/upload-h2c");
  }

  void idleStreams(String host, String pool) throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", dp.trafficPort()));
    s.setSoTimeout(20_000);
    clients.add(s);
    OutputStream out = s.getOutputStream();
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    out.write(frame(0x4, 0, 0, new byte[0]));
    for (int id = 1; id <= 11; id += 2) {
      out.write(frame(0x1, 0x4, id, post(host, "/up/" + id))); // END_HEADERS, not END_STREAM
      out.write(frame(0x0, 0x0, id, "0123456789".getBytes(StandardCharsets.US_ASCII)));
    }
    out.flush();
    await().atMost(WAIT).until(() -> m1.heads.get() + m2.heads.get() == 6);
    assertThat(statusesRead(s, 6))
        .as("each open stream answered 408")
        .containsOnlyKeys(1, 3, 5, 7, 9, 11)
        .containsValues("408");
    assertMembersNotBlamed(pool, host, "h2", 6);
  }

  /**
   * The stalled requests are over, each counted as its client's stall, no member counted failed or
   * ejected, and a client that finishes its requests gets answers from both members.
   */
  void assertMembersNotBlamed(String pool, String host, String protocol, int stalled)
      throws Exception {
    String p = "pool=\"" + pool + "\"";
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(metric("replicapool_member_inflight", p))
                    .as("stalled tries still out")
                    .isZero());
    assertThat(
            metric(
                "replicapool_client_stalled_total",
                p + ",protocol=\"" + protocol + "\",side=\"request\""))
        .as("requests cut because their client stopped sending, counted")
        .isEqualTo(stalled);
    assertThat(metric("replicapool_ejections_total", p))
        .as("members ejected because clients stopped sending")
        .isZero();
    assertThat(metric("replicapool_upstream_seconds_count", p + ",outcome=\"timeout\""))
        .as("tries counted as member timeouts")
        .isZero();
    assertThat(sequential(dp.trafficPort(), host, 20)).containsOnlyKeys("m1", "m2");
  }

  /** A POST's header block: {@code :method POST}, {@code content-length: 100}. */
  static byte[] post(String authority, String path) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(new byte[] {(byte) 0x83, (byte) 0x86}); // :method POST, :scheme http
    RawH2Frames.literal(b, ":path", path);
    RawH2Frames.literal(b, ":authority", authority);
    RawH2Frames.literal(b, "content-length", "100");
    return b.toByteArray();
  }

  /** Reads frames until {@code n} streams got an answer's head; the {@code :status} of each. */
  static Map<Integer, String> statusesRead(Socket s, int n) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    var hpack = new io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder(false);
    Map<Integer, String> statuses = new TreeMap<>();
    while (statuses.size() < n) {
      int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
      int type = in.readUnsignedByte();
      in.readUnsignedByte();
      int stream = in.readInt() & 0x7fffffff;
      byte[] payload = in.readNBytes(length);
      if (type == 0x1) {
        var head = hpack.decodeHeaders(stream, io.netty.buffer.Unpooled.wrappedBuffer(payload));
        statuses.putIfAbsent(stream, String.valueOf(head.status()));
      } else if (type == 0x3) {
        statuses.putIfAbsent(stream, "reset " + java.nio.ByteBuffer.wrap(payload).getInt());
      }
      assertThat(type).as("no GOAWAY: the connection is not the stall's").isNotEqualTo(0x7);
    }
    return statuses;
  }
}
