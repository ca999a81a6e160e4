package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Malformed HTTP/2 from clients, however frequent, costs at most one log line and a counter: a
 * client must not be able to flood the data plane's log.
 */
class ClientProtocolErrorsIT extends DataPlaneTestBase {
  /**
   * 60 bytes: the preface, an empty SETTINGS, and a DATA frame of 18 bytes on stream 1, which the
   * client never opened (a connection error PROTOCOL_ERROR, RFC 9113 5.1).
   */
  static byte[] dataOnAStreamNeverOpened() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(RawH2Frames.preface());
    b.writeBytes(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // SETTINGS, no settings
    b.writeBytes(new byte[] {0, 0, 18, 0, 0, 0, 0, 0, 1}); // DATA, 18 bytes, stream 1
    b.writeBytes(new byte[18]);
    return b.toByteArray();
  }

  @Test
  void dataOnAStreamNeverOpenedSentManyTimesLogsOneLineAndCountsEachTime() throws Exception {
    byte[] packet = dataOnAStreamNeverOpened();
    assertThat(packet).hasSize(60);
    startDataPlane();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    root.addAppender(logged);
    int n = 200;
    try {
      for (int i = 0; i < n; i++) {
        try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
          s.setSoTimeout(5_000);
          OutputStream out = s.getOutputStream();
          out.write(packet);
          out.flush();
          InputStream in = s.getInputStream();
          while (in.read(new byte[512]) >= 0) {
            // the proxy's SETTINGS and GOAWAY, until it closes the connection
          }
        }
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> protocolErrors().contains("error=\"PROTOCOL_ERROR\"") && count() >= n);
    } finally {
      root.detachAppender(logged);
    }
    // The control-plane server's own lines (a data plane connecting) are not the traffic's.
    List<ILoggingEvent> traffic =
        logged.list.stream()
            .filter(e -> !e.getLoggerName().startsWith("dev.replicapool.controlplane"))
            .toList();
    System.out.println(
        "FIGURE client protocol errors: "
            + n
            + " connections with DATA on a stream never opened: "
            + traffic.size()
            + " log line(s), counter "
            + count());
    assertThat(count()).isEqualTo(n);
    assertThat(traffic).hasSizeLessThanOrEqualTo(1);
    assertThat(traffic).allMatch(e -> e.getThrowableProxy() == null, "no stack trace");
  }

  String protocolErrors() throws Exception {
    return adminGet("/metrics")
        .body()
        .lines()
        .filter(l -> l.startsWith("replicapool_client_protocol_errors_total{"))
        .findFirst()
        .orElse("");
  }

  double count() throws Exception {
    String line = protocolErrors();
    return line.isEmpty() ? 0 : Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
