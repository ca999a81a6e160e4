package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of clients that stall share: two members, pools with a short idle timeout and
 * outlier detection at two consecutive failures (so that a stall taken for the member's would eject
 * it), raw client sockets, and the check that a stall was the client's and not the member's.
 */
abstract class StalledClientsBase extends DataPlaneTestBase {
  static final long IDLE_MILLIS = 500;
  static final int RST_STREAM = 0x3;
  static final int CANCEL = 0x8;

  TestMember m1;
  TestMember m2;
  private final List<Socket> clients = new ArrayList<>();

  @BeforeEach
  void startMembers() {
    // One event loop: every client's streams to a member share one member connection.
    startDataPlane(settings().withInstances(1));
    m1 = member("m1");
    m2 = member("m2");
  }

  @AfterEach
  void closeClients() throws IOException {
    for (Socket s : clients) {
      s.close();
    }
  }

  /** Pool {@code name} of both members for {@code host}; {@code appProtocol} null: http. */
  void publishPool(String name, String host, String appProtocol, long idleMillis) {
    SnapshotBuilder b =
        SnapshotBuilder.pool(name)
            .hosts(host)
            .timeouts(null, null, idleMillis)
            .outlier(2, 60_000)
            .members(m1.snapshot(1), m2.snapshot(1));
    publish(appProtocol == null ? b : b.appProtocol(appProtocol));
  }

  /** A client connection; {@code receiveBuffer} > 0 makes it a small one (a reader that stalls). */
  Socket client(int receiveBuffer) throws IOException {
    Socket s = new Socket();
    if (receiveBuffer > 0) {
      s.setReceiveBufferSize(receiveBuffer);
    }
    s.connect(new InetSocketAddress("127.0.0.1", dp.trafficPort()));
    s.setSoTimeout(20_000);
    clients.add(s);
    return s;
  }

  /**
   * The stalled requests are over, each counted as its client's stall on {@code side}, no member
   * counted failed or ejected, and a client that behaves gets answers from both members.
   */
  void assertMembersNotBlamed(String pool, String host, String protocol, String side, int stalled)
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
                p + ",protocol=\"" + protocol + "\",side=\"" + side + "\""))
        .as("requests cut for their client's stall, counted")
        .isEqualTo(stalled);
    assertThat(metric("replicapool_ejections_total", p))
        .as("members ejected for their clients' stalls")
        .isZero();
    assertThat(metric("replicapool_upstream_seconds_count", p + ",outcome=\"timeout\""))
        .as("tries counted as member timeouts")
        .isZero();
    assertThat(sequential(dp.trafficPort(), host, 20)).containsOnlyKeys("m1", "m2");
  }

  /**
   * Reads an HTTP/2 client's frames until {@code n} streams were reset; per stream, what it got in
   * order: the {@code :status} of each header block, then {@code reset <code>}.
   */
  static Map<Integer, List<String>> streamsRead(Socket s, int n) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false);
    Map<Integer, List<String>> streams = new TreeMap<>();
    int resets = 0;
    while (resets < n) {
      RawH2Frames.Frame f = RawH2Frames.read(in);
      assertThat(f.type()).as("no GOAWAY: the connection is not the stall's").isNotEqualTo(0x7);
      if (f.type() == 0x1) {
        CharSequence status =
            hpack.decodeHeaders(f.stream(), Unpooled.wrappedBuffer(f.payload())).status();
        streams.computeIfAbsent(f.stream(), k -> new ArrayList<>()).add(String.valueOf(status));
      } else if (f.type() == RST_STREAM) {
        streams
            .computeIfAbsent(f.stream(), k -> new ArrayList<>())
            .add("reset " + ByteBuffer.wrap(f.payload()).getInt());
        resets++;
      }
    }
    return streams;
  }
}
