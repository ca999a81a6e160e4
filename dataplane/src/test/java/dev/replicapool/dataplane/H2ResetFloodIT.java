package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rapid reset (CVE-2023-44487) from a raw attacking client reaches no member, and a real grpc-java
 * client whose deadlines cancel every call keeps its connection (Netty's default limit, 200 resets
 * in 30 s, closed it, and let the first 200 of the attack through to the members).
 */
class H2ResetFloodIT extends DataPlaneTestBase {
  static final String HOST = "echo.grpc.example";
  static final String PLAIN_HOST = "plain.shop.example";
  GrpcEcho echo;
  ManagedChannel channel;

  @AfterEach
  void stopGrpc() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (echo != null) {
      echo.stop();
    }
  }

  void servePool() throws Exception {
    echo = new GrpcEcho("a");
    publish(
        SnapshotBuilder.pool("shop/echo")
            .hosts(HOST)
            .appProtocol("kubernetes.io/h2c")
            .member(new MemberSnapshot("127.0.0.1", echo.port(), 1.0, MemberState.Healthy)));
  }

  @Test
  void aClientWhoseDeadlinesCancelEveryCallKeepsItsConnection() throws Exception {
    startDataPlane();
    servePool();
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort())
            .usePlaintext()
            .overrideAuthority(HOST)
            .build();
    Map<String, Integer> outcomes = new HashMap<>();
    int calls = 2000;
    for (int batch = 0; batch < calls / 8; batch++) {
      List<CompletableFuture<String>> ended = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        CompletableFuture<String> end = new CompletableFuture<>();
        // A client stream left open: its 2 ms deadline cancels it (RST_STREAM CANCEL).
        StreamObserver<String> up =
            ClientCalls.asyncClientStreamingCall(
                channel.newCall(
                    GrpcEcho.CLIENT_STREAM,
                    CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.MILLISECONDS)),
                new StreamObserver<>() {
                  @Override
                  public void onNext(String v) {}

                  @Override
                  public void onError(Throwable t) {
                    end.complete(outcome(Status.fromThrowable(t)));
                  }

                  @Override
                  public void onCompleted() {
                    end.complete("OK");
                  }
                });
        up.onNext("part");
        ended.add(end);
      }
      for (CompletableFuture<String> e : ended) {
        outcomes.merge(e.get(10, TimeUnit.SECONDS), 1, Integer::sum);
      }
    }
    System.out.println(
        "FIGURE h2 reset flood: 2000 calls cancelled by 2 ms deadlines: " + outcomes);
    // The member cancels a call at the deadline it was passed (grpc-timeout) too, so once in a
    // while its reset wins the race and the data plane answers UNAVAILABLE naming the member.
    // What must never happen is the connection closing under the calls.
    assertThat(outcomes.keySet())
        .isSubsetOf("DEADLINE_EXCEEDED", "UNAVAILABLE (the member reset the call)");
    assertThat(outcomes.getOrDefault("DEADLINE_EXCEEDED", 0)).isGreaterThan(calls * 9 / 10);
    assertThat(protocolErrors()).isZero();
  }

  static String outcome(Status s) {
    String d = String.valueOf(s.getDescription());
    return s.getCode() == Status.Code.UNAVAILABLE && d.contains("member") && !d.contains("GOAWAY")
        ? "UNAVAILABLE (the member reset the call)"
        : s.getCode().name();
  }

  /**
   * Rapid reset: 2,000 streams opened and reset back to back on one connection. They reach no
   * member, and past the connection's budget of streams reset in the read that opened them (100,
   * with no answer between) the connection is closed with ENHANCE_YOUR_CALM and counted; a new
   * connection is served as before.
   */
  @Test
  void rapidResetReachesNoMemberAndItsConnectionIsClosed() throws Exception {
    startDataPlane();
    TestMember m = member("m1");
    publish(SnapshotBuilder.pool("shop/plain").hosts(PLAIN_HOST).members(m.snapshot(1)));
    int pairs = 2000;
    try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(RawH2Frames.preface());
      out.write(frame(0x4, 0, 0, new byte[0])); // SETTINGS
      ByteArrayOutputStream burst = new ByteArrayOutputStream();
      for (int i = 0, id = 1; i < pairs; i++, id += 2) {
        burst.writeBytes(
            frame(
                0x1,
                0x5,
                id,
                RawH2Frames.request(PLAIN_HOST, "/"))); // HEADERS, END_STREAM|END_HEADERS
        burst.writeBytes(frame(0x3, 0, id, new byte[] {0, 0, 0, 8})); // RST_STREAM CANCEL
      }
      try {
        out.write(burst.toByteArray());
      } catch (IOException closedMidBurst) {
        // the data plane closed the connection before it took the whole burst: expected
      }
      Integer code = goAwayCode(new DataInputStream(s.getInputStream()));
      if (code != null) { // a GOAWAY can be lost to the close's reset, as for every flood
        assertThat(code).as("GOAWAY ENHANCE_YOUR_CALM").isEqualTo(0xb);
      }
    }
    try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(RawH2Frames.preface());
      out.write(frame(0x4, 0, 0, new byte[0]));
      out.write(frame(0x1, 0x5, 1, RawH2Frames.request(PLAIN_HOST, "/")));
      assertThat(headersOn(new DataInputStream(s.getInputStream()), 1))
          .as("another connection is answered")
          .isTrue();
    }
    int reached = m.heads.get();
    System.out.println(
        "FIGURE h2 rapid reset: "
            + pairs
            + " HEADERS+RST_STREAM pairs, "
            + reached
            + " reached the member (the request of the next connection included)");
    // A pair split between two reads is forwarded (its HEADERS' read ended without the reset).
    assertThat(reached).isBetween(1, 1 + pairs / 100);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(adminGet("/metrics").body())
                    .as("the close counted with its reason")
                    .contains(
                        "replicapool_client_protocol_errors_total{error=\"ENHANCE_YOUR_CALM\","
                            + "protocol=\"h2\"} 1.0"));
  }

  /** The error code of the GOAWAY read before the connection ends, null if none was read. */
  static Integer goAwayCode(DataInputStream in) {
    try {
      while (true) {
        RawH2Frames.Frame f = RawH2Frames.read(in);
        if (f.type() == 0x7) {
          return ByteBuffer.wrap(f.payload()).getInt(4); // last stream id, then code
        }
      }
    } catch (IOException endedOrReset) {
      return null;
    }
  }

  /** Whether a HEADERS frame of stream {@code id} comes before the end of the stream. */
  static boolean headersOn(DataInputStream in, int id) throws Exception {
    try {
      while (true) {
        RawH2Frames.Frame f = RawH2Frames.read(in);
        if (f.type() == 0x1 && f.stream() == id) {
          return true;
        }
        if (f.type() == 0x7) {
          return false; // GOAWAY
        }
      }
    } catch (EOFException e) {
      return false;
    }
  }

  double protocolErrors() throws Exception {
    double sum = 0;
    for (String line : adminGet("/metrics").body().split("\n")) {
      if (line.startsWith("replicapool_client_protocol_errors_total{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
