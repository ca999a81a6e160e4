package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request smuggling is two parsers disagreeing on where a request ends. Each payload of the known
 * desync families (CL.TE, TE.CL, obfuscated Transfer-Encoding, conflicting Content-Length, chunk
 * size and extension tricks, bare CR and LF, HTTP/1.0 with a transfer coding, hop-by-hop framing
 * headers, a GET with a body) hides a request for {@code /smuggled-N} where one of the two readings
 * would find it. The same bytes go through the data plane to two members that read HTTP/1.1
 * differently: a strict one (Vert.x, Netty's codec) and one that frames by Content-Length alone and
 * ignores Transfer-Encoding ({@link LaxFramingMember}). Whatever the data plane does with a payload
 * (refuse it, or forward it in the normal form), a member reads a request for {@code /smuggled-N}
 * only when the data plane read it as a request too, and answered it on the client's connection (it
 * followed a message the data plane framed, pipelined): the member and the data plane agree on
 * where each request ends, or the payload is refused.
 */
class SmugglingDifferentialIT {
  static FaultSystem sys;
  static DataPlane dp;
  static RecordingMember strict;
  static LaxFramingMember lax;
  static final List<String> table = new CopyOnWriteArrayList<>();
  static final AtomicInteger markers = new AtomicInteger();

  /** The hidden requests the data plane itself answered as pipelined requests. */
  static final Set<String> answered = ConcurrentHashMap.newKeySet();

  static final Pattern SMUGGLED = Pattern.compile("^\\S+ /smuggled.*", Pattern.DOTALL);

  @BeforeAll
  static void start() {
    sys = new FaultSystem("smuggling");
    ReplicaPoolOperator op = sys.startOperator();
    dp = sys.startDataPlane("dp-smuggling", op.controlPlanePort());
    strict = sys.closeLater(new RecordingMember(sys.vertx));
    lax = sys.closeLater(new LaxFramingMember(300));
    sys.create(sys.pool("strict", List.of(strict.address())));
    sys.create(sys.pool("lax", List.of(lax.address())));
    sys.awaitReadyAndSynced("strict", Duration.ofSeconds(30));
    sys.awaitReadyAndSynced("lax", Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    System.out.println("FIGURE smuggling-differential: the data plane's answer per payload");
    table.forEach(l -> System.out.println("FIGURE   " + l));
    // A smuggled request read late (the lax member answers strays after 300 ms) still counts.
    assertThat(strict.received()).noneMatch(SmugglingDifferentialIT::smuggled);
    assertThat(lax.received()).noneMatch(SmugglingDifferentialIT::smuggled);
    sys.close();
  }

  /** A request line for a hidden request that the data plane did not answer as one. */
  static boolean smuggled(String requestLine) {
    if (!SMUGGLED.matcher(requestLine).matches()) {
      return false;
    }
    String path = requestLine.split(" ")[1];
    return !answered.contains(path);
  }

  /**
   * The payloads: {@code {H}} is the target pool's host, {@code {S}} the smuggled path, {@code
   * {LEN}} the byte length of everything after the head (what a reader by Content-Length takes).
   */
  static List<String[]> payloads() {
    String smuggled = "GET {S} HTTP/1.1\r\nHost: {H}\r\n\r\n";
    String post = "POST /up HTTP/1.1\r\nHost: {H}\r\n";
    List<String[]> p = new ArrayList<>();
    p.add(
        new String[] {
          "CL.TE: Content-Length covers a request after the last chunk",
          post + "Content-Length: {LEN}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
        });
    p.add(
        new String[] {
          "TE.CL: a short Content-Length, the request inside the chunk",
          post
              + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "23\r\nGET {S} HTTP/1.1\r\nX: x\r\n\r\n\r\n0\r\n\r\n"
        });
    for (String te :
        List.of(
            "Transfer-Encoding: xchunked",
            "Transfer-Encoding : chunked",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: x",
            "Transfer-Encoding:\tchunked",
            "Transfer-Encoding\r\n : chunked",
            "X: y\nTransfer-Encoding: chunked",
            "X: y\rTransfer-Encoding: chunked",
            "Transfer-Encoding: chunked, identity",
            "Transfer-Encoding: identity, chunked",
            "Transfer-Encoding: \"chunked\"",
            "Transfer-Encoding: chunk",
            "Transfer-Encoding: chunked\u000b",
            "Transfer-Encoding: \u00a0chunked",
            "Transfer_Encoding: chunked",
            "Transfer-Encoding: CHUNKED")) {
      p.add(
          new String[] {
            "obfuscated TE (" + te.replace("\r", "\\r").replace("\n", "\\n") + ") with CL",
            post + "Content-Length: {LEN}\r\n" + te + "\r\n\r\n0\r\n\r\n" + smuggled
          });
    }
    p.add(
        new String[] {
          "two Content-Length headers, 0 and the rest",
          post + "Content-Length: 0\r\nContent-Length: {LEN}\r\n\r\n" + smuggled
        });
    p.add(
        new String[] {
          "Content-Length in hex", post + "Content-Length: 0x{LEN}\r\n\r\n" + smuggled
        });
    p.add(
        new String[] {
          "Content-Length with a comma list", post + "Content-Length: 0, {LEN}\r\n\r\n" + smuggled
        });
    for (String[] chunked :
        List.of(
            new String[] {"chunk extension with a bare LF", "5;ext\nx\r\nhello\r\n0\r\n\r\n"},
            new String[] {"chunk size in hex notation", "0x5\r\nhello\r\n0\r\n\r\n"},
            new String[] {"chunk size with trailing space", "5 \r\nhello\r\n0\r\n\r\n"},
            new String[] {"negative last chunk", "5\r\nhello\r\n-0\r\n\r\n"},
            new String[] {
              "chunk size of 23 digits", "00000000000000000000005\r\nhello\r\n0\r\n\r\n"
            },
            new String[] {"chunk data without its CRLF", "5\r\nhelloXX0\r\n\r\n"},
            new String[] {
              "Content-Length in the trailer", "5\r\nhello\r\n0\r\nContent-Length: 40\r\n\r\n"
            })) {
      p.add(
          new String[] {
            chunked[0], post + "Transfer-Encoding: chunked\r\n\r\n" + chunked[1] + smuggled
          });
    }
    p.add(
        new String[] {
          "HTTP/1.0 with Transfer-Encoding and Content-Length",
          "POST /up HTTP/1.0\r\nHost: {H}\r\nTransfer-Encoding: chunked\r\n"
              + "Content-Length: {LEN}\r\n\r\n0\r\n\r\n"
              + smuggled
        });
    p.add(
        new String[] {
          "Connection names Content-Length (hop-by-hop framing)",
          post + "Connection: Content-Length\r\nContent-Length: {LEN}\r\n\r\n" + smuggled
        });
    p.add(
        new String[] {
          "Connection names Transfer-Encoding",
          post
              + "Connection: Transfer-Encoding\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "0\r\n\r\n"
              + smuggled
        });
    p.add(
        new String[] {
          "GET whose body is a request",
          "GET /get HTTP/1.1\r\nHost: {H}\r\nContent-Length: {LEN}\r\n\r\n" + smuggled
        });
    p.add(
        new String[] {
          "Expect: 100-continue, body sent at once",
          post + "Expect: 100-continue\r\nContent-Length: {LEN}\r\n\r\n" + smuggled
        });
    return p;
  }

  static Stream<Arguments> cells() {
    List<Arguments> cells = new ArrayList<>();
    List<String[]> payloads = payloads();
    for (int i = 0; i < payloads.size(); i++) {
      for (String target : List.of("strict", "lax")) {
        cells.add(Arguments.of(payloads.get(i)[0] + " -> " + target, target, i));
      }
    }
    return cells.stream();
  }

  /**
   * The bytes of payload {@code i} for {@code host}, its hidden request for {@code smuggledPath}.
   */
  static byte[] wire(int i, String host, String smuggledPath) {
    String s = payloads().get(i)[1].replace("{H}", host).replace("{S}", smuggledPath);
    int head = s.indexOf("\r\n\r\n");
    int len = head < 0 ? 0 : s.length() - head - 4;
    return s.replace("{LEN}", String.valueOf(len)).getBytes(StandardCharsets.ISO_8859_1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void noMemberReadsTheHiddenRequest(String name, String target, int payload) throws Exception {
    String host = target + ".local";
    String smuggledPath = "/smuggled-" + payload + "-" + target;
    HostileSocket.Outcome outcome;
    try (HostileSocket s = new HostileSocket(dp.trafficPort(), 1_000).closeWait(300)) {
      outcome = s.exchange(wire(payload, host, smuggledPath));
      // A second answer on this connection is the hidden request's: the data plane read it as a
      // pipelined request of its own, after a message it framed.
      if (!outcome.closedAfter() && s.readStatus().status() > 0) {
        answered.add(smuggledPath);
      }
    }
    table.add(
        String.format(
            "%-72s %s%s",
            name,
            outcome,
            answered.contains(smuggledPath) ? ", then the hidden request as its own" : ""));

    // A marker request after it: whatever the data plane forwarded before has reached the member
    // by the time the marker has (one member, its connections served in order of the proxy's).
    String marker = "/marker-" + markers.incrementAndGet();
    try (HostileSocket s = new HostileSocket(dp.trafficPort(), 5_000)) {
      HostileSocket.Outcome ok =
          s.exchange(
              "GET " + marker + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
      assertThat(ok.status()).as("%s: the marker after it", name).isEqualTo(200);
    }
    Supplier<List<String>> received = target.equals("strict") ? strict::received : lax::received;
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> received.get().stream().anyMatch(r -> r.startsWith("GET " + marker)));
    if (!answered.contains(smuggledPath)) {
      assertThat(received.get())
          .as("%s: what the %s member read", name, target)
          .noneMatch(r -> r.startsWith("GET " + smuggledPath));
    }
  }
}
