package dev.replicapool.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A member whose HTTP/1.1 parser frames a body by Content-Length alone and knows nothing of
 * Transfer-Encoding, as lax servers do: a chunked body is read as further requests, each answered
 * in turn. Every answer names the request line it answers in an {@code X-Answers} header, so a test
 * sees which request an answer a client got was meant for. A request line that is not {@code METHOD
 * TARGET VERSION} (a chunk read as a request) is answered after {@code strayDelayMillis}: the stray
 * answer comes late, when the proxy may have given the connection to someone else.
 */
final class LaxFramingMember implements AutoCloseable {
  private final ServerSocket server;
  private final long strayDelayMillis;
  private final List<String> received = new CopyOnWriteArrayList<>();

  LaxFramingMember(long strayDelayMillis) {
    this.strayDelayMillis = strayDelayMillis;
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::acceptLoop, "lax-member-" + server.getLocalPort());
    t.setDaemon(true);
    t.start();
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** Every request line read, probes included, in order. */
  List<String> received() {
    return List.copyOf(received);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        Thread t = new Thread(() -> serve(s), "lax-member-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      String requestLine;
      while ((requestLine = line(in)) != null) {
        long contentLength = 0;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
          int colon = h.indexOf(':');
          if (colon > 0
              && h.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
            contentLength = Long.parseLong(h.substring(colon + 1).trim());
          }
        }
        in.skipNBytes(contentLength);
        received.add(requestLine);
        if (requestLine.split(" ").length != 3) {
          Thread.sleep(strayDelayMillis);
        }
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Answers: " + requestLine + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the connection is gone
    }
  }

  /** One line without its CRLF (a bare LF ends it too), or null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) >= 0; ) {
      if (c == '\n') {
        String l = b.toString(StandardCharsets.ISO_8859_1);
        return l.endsWith("\r") ? l.substring(0, l.length() - 1) : l;
      }
      b.write(c);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
