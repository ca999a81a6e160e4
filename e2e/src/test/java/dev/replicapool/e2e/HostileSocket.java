package dev.replicapool.e2e;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw TCP client that writes exactly the bytes a test gives it (malformed ones included) and
 * reports what came back: the status of the first response, whether the server closed the
 * connection, or that nothing came at all within the read timeout.
 */
final class HostileSocket implements AutoCloseable {
  /** No status line arrived: the server closed (or reset) the connection first. */
  static final int CLOSED = -1;

  /** No status line arrived and the connection is still open after the read timeout. */
  static final int SILENT = -2;

  /** What the server did with one request. */
  record Outcome(int status, String head, boolean closedAfter, long closeMillis) {
    Outcome(int status, String head, boolean closedAfter) {
      this(status, head, closedAfter, -1);
    }

    boolean refused() {
      return status == CLOSED || (status >= 400 && status < 500) || status == 501 || status == 505;
    }

    @Override
    public String toString() {
      String s =
          status == CLOSED ? "closed without answer" : status == SILENT ? "no answer" : "" + status;
      return s
          + (closedAfter && status > 0 ? " + closed" : "")
          + (closeMillis >= 0 ? " (" + closeMillis + " ms)" : "");
    }
  }

  private final Socket socket;
  private int closeWaitMillis = 1_000;
  private final InputStream in;
  private final OutputStream out;

  HostileSocket(int port, int readTimeoutMillis) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(readTimeoutMillis);
    in = new BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** How long to wait, after a response, for the server to close (default 1 s). */
  HostileSocket closeWait(int millis) {
    this.closeWaitMillis = millis;
    return this;
  }

  void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  void write(String ascii) throws IOException {
    write(ascii.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Sends the bytes, reads the head of the first answer, then checks whether the peer closed. */
  Outcome exchange(byte[] request) throws IOException {
    try {
      write(request);
    } catch (SocketException e) {
      // The server may close while a big request is still being written.
      return new Outcome(readStatus().status(), "", true);
    }
    return readStatus();
  }

  Outcome exchange(String ascii) throws IOException {
    return exchange(ascii.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Reads the status line and headers of one response, and whether the connection ends after. */
  Outcome readStatus() throws IOException {
    String head;
    try {
      head = readHead();
    } catch (SocketTimeoutException e) {
      return new Outcome(SILENT, "", false);
    } catch (SocketException e) {
      return new Outcome(CLOSED, "", true);
    }
    if (head == null) {
      return new Outcome(CLOSED, "", true);
    }
    String[] parts = head.split(" ", 3);
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (RuntimeException e) {
      throw new IOException("not an HTTP response: " + head);
    }
    long t0 = System.nanoTime();
    boolean closed = closedSoon(head);
    return new Outcome(status, head, closed, (System.nanoTime() - t0) / 1_000_000);
  }

  /** Whether the server closes the connection after the response (reads and discards the body). */
  private boolean closedSoon(String head) {
    try {
      int cl = contentLength(head);
      if (cl > 0) {
        in.readNBytes(cl);
      }
      int prev = socket.getSoTimeout();
      socket.setSoTimeout(Math.min(prev, closeWaitMillis));
      try {
        return in.read() < 0;
      } finally {
        socket.setSoTimeout(prev);
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
        return Integer.parseInt(line.substring(colon + 1).trim());
      }
    }
    return 0;
  }

  private String readHead() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int state = 0;
    for (int c; (c = in.read()) >= 0; ) {
      buf.write(c);
      // \r\n\r\n ends the head
      state =
          (c == '\r' && (state == 0 || state == 2))
              ? state + 1
              : (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
      if (state == 4) {
        String head = buf.toString(StandardCharsets.ISO_8859_1);
        if (head.startsWith("HTTP/1.1 100 ")) {
          buf.reset();
          state = 0;
          continue;
        }
        return head;
      }
    }
    return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
  }

  /** True once the server closed the connection (a read hits end of stream or a reset). */
  boolean closedByPeer() {
    return closedByPeer(50);
  }

  /** Same, waiting at most the given time for the end of stream. */
  boolean closedByPeer(int waitMillis) {
    try {
      int prev = socket.getSoTimeout();
      socket.setSoTimeout(waitMillis);
      try {
        return in.read() < 0;
      } finally {
        socket.setSoTimeout(prev);
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
