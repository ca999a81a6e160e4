package dev.replicapool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A port that refuses every connection for as long as this is open: a socket bound to it that never
 * listens. A port found free and closed again is not enough for a dead member, because the next
 * socket anyone binds (a test's other member, the proxy's outgoing connection) may be given the
 * same port; one held bound cannot be.
 */
public final class RefusedPort implements AutoCloseable {
  private final Socket held = new Socket();
  public final String host;
  public final int port;

  public RefusedPort(String host) {
    try {
      held.bind(new InetSocketAddress(host, 0));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot hold a port on " + host, e);
    }
    this.host = host;
    this.port = held.getLocalPort();
  }

  /** {@code host:port}, as a static endpoint names it. */
  public String address() {
    return host + ":" + port;
  }

  @Override
  public void close() throws IOException {
    held.close();
  }
}
