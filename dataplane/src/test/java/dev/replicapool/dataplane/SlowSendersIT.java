package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
class SlowSendersIT extends StalledClientsBase {
  static final String HOST = "upload.example";
  static final String H2C_HOST = "upload-h2c.example";

  @BeforeEach
  void servePools() {
    publishPool("shop/upload", HOST, null, IDLE_MILLIS);
    publishPool("shop/upload-h2c", H2C_HOST, "kubernetes.io/h2c", IDLE_MILLIS);
  }

  @Test
  void http1RequestsWhoseBodyStopsAreAnswered408AndTheirMembersAreNotBlamed() throws Exception {
    List<RawHttp> stalled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      RawHttp c = new RawHttp(client(0));
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
    assertMembersNotBlamed("shop/upload", HOST, "http1", "request", 6);
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
    Socket s = client(0);
    OutputStream out = s.getOutputStream();
    out.write(RawH2Frames.preface());
    out.write(frame(0x4, 0, 0, new byte[0]));
    for (int id = 1; id <= 11; id += 2) {
      out.write(frame(0x1, 0x4, id, post(host, "/up/" + id))); // END_HEADERS, not END_STREAM
      out.write(frame(0x0, 0x0, id, "0123456789".getBytes(StandardCharsets.US_ASCII)));
    }
    out.flush();
    await().atMost(WAIT).until(() -> m1.heads.get() + m2.heads.get() == 6);
    assertThat(streamsRead(s, 6))
        .as("each open stream answered 408, then reset (the rest of its body is not read)")
        .containsOnlyKeys(1, 3, 5, 7, 9, 11)
        .allSatisfy((id, got) -> assertThat(got).containsExactly("408", "reset " + CANCEL));
    assertMembersNotBlamed(pool, host, "h2", "request", 6);
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
}
