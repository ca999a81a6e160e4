package dev.replicapool.dataplane;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately dumb HTTP/1.1 client over one socket: what is written is exactly what the test
 * says (malformed requests included), and every response is read off the same connection.
 */
final class RawHttp implements AutoCloseable {
  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttp(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout(10_000);
    this.in = new java.io.BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  Socket socket() {
    return socket;
  }

  static RawHttp connect(int port) throws IOException {
    return new RawHttp(new Socket("127.0.0.1", port));
  }

  Response get(String host, String path) throws IOException {
    return send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  }

  /** A POST of {@code body} with its Content-Length. */
  Response post(String host, String path, String body) throws IOException {
    return send(
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body);
  }

  Response send(String raw) throws IOException {
    return send(raw.getBytes(StandardCharsets.ISO_8859_1));
  }

  Response send(byte[] raw) throws IOException {
    out.write(raw);
    out.flush();
    return read();
  }

  Response read() throws IOException {
    String statusLine = line();
    if (statusLine == null) {
      throw new IOException("connection closed before a response");
    }
    String[] parts = statusLine.split(" ", 3);
    int status = Integer.parseInt(parts[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String l = line(); l != null && !l.isEmpty(); l = line()) {
      int colon = l.indexOf(':');
      String name = l.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = l.substring(colon + 1).strip();
      headers.merge(name, value, (a, b) -> a + ", " + b);
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    String cl = headers.get("content-length");
    if (cl != null) {
      body.write(in.readNBytes(Integer.parseInt(cl)));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int size = Integer.parseInt(line().strip(), 16); size > 0; ) {
        body.write(in.readNBytes(size));
        line();
        size = Integer.parseInt(line().strip(), 16);
      }
      line();
    } else if ("close".equalsIgnoreCase(headers.get("connection"))) {
      body.write(in.readAllBytes());
    }
    return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  /** True when the server closed the connection (a read hits end of stream). */
  boolean closedByPeer() {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return true;
    }
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        int n = sb.length();
        if (n > 0 && sb.charAt(n - 1) == '\r') {
          sb.setLength(n - 1);
        }
        return sb.toString();
      }
      sb.append((char) c);
    }
    return sb.length() == 0 ? null : sb.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
