package dev.replicapool.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * An HTTP/1.1 client on exactly one keep-alive connection, as S1 sends its requests: one after
 * another on the same socket, reconnecting only when the server closed it.
 */
final class KeepAliveClient implements AutoCloseable {
  /** One response: status and the x-replica header. */
  record Response(int status, String replica) {}

  private final String host;
  private final int port;
  private Socket socket;
  private int connections;

  KeepAliveClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** How many connections were opened so far (1 when the server kept the first alive). */
  int connections() {
    return connections;
  }

  Response get(String hostHeader, String path) throws IOException {
    return get(hostHeader, path, "");
  }

  /** The same with more header lines, each ending in CRLF. */
  Response get(String hostHeader, String path, String headerLines) throws IOException {
    if (socket == null || socket.isClosed()) {
      socket = new Socket();
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(20_000);
      socket.setTcpNoDelay(true);
      connections++;
    }
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\n" + headerLines + "\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    String statusLine = line(in);
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    String replica = null;
    long length = -1;
    boolean chunked = false;
    boolean close = false;
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      int colon = h.indexOf(':');
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "x-replica" -> replica = value;
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.equalsIgnoreCase("chunked");
        case "connection" -> close = value.equalsIgnoreCase("close");
        default -> {}
      }
    }
    if (chunked) {
      for (long size = Long.parseLong(line(in).split(";")[0].trim(), 16);
          size > 0;
          size = Long.parseLong(line(in).split(";")[0].trim(), 16)) {
        in.readNBytes((int) size);
        line(in);
      }
      line(in);
    } else if (length > 0) {
      in.readNBytes((int) length);
    }
    if (close) {
      socket.close();
    }
    return new Response(status, replica);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed by the server");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      socket.close();
    }
  }
}
