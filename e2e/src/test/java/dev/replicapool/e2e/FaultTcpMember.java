package dev.replicapool.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A member that misbehaves at the TCP level, on a loopback port:
 *
 * <ul>
 *   <li>{@link #resetting()} accepts every connection and resets it at once (RST, SO_LINGER 0): a
 *       crashed process whose port something else still holds, a broken sidecar;
 *   <li>{@link #silent()} accepts every connection, reads what comes and never answers: a hung
 *       process behind a live kernel socket. It counts the connections open at once, so that a test
 *       sees whether probes pile up.
 * </ul>
 */
final class FaultTcpMember implements AutoCloseable {
  private final ServerSocket server;
  private final boolean reset;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger maxOpen = new AtomicInteger();

  private FaultTcpMember(boolean reset) {
    this.reset = reset;
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::acceptLoop, "fault-member-" + server.getLocalPort());
    t.setDaemon(true);
    t.start();
  }

  static FaultTcpMember resetting() {
    return new FaultTcpMember(true);
  }

  static FaultTcpMember silent() {
    return new FaultTcpMember(false);
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  int accepted() {
    return accepted.get();
  }

  int openNow() {
    return open.size();
  }

  /** The most connections that were open at once. */
  int maxOpen() {
    return maxOpen.get();
  }

  void resetMaxOpen() {
    maxOpen.set(open.size());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      accepted.incrementAndGet();
      if (reset) {
        try {
          s.setSoLinger(true, 0);
          s.close();
        } catch (IOException ignored) {
          // gone already
        }
        continue;
      }
      open.add(s);
      maxOpen.accumulateAndGet(open.size(), Math::max);
      Thread r =
          new Thread(
              () -> {
                byte[] buf = new byte[4096];
                try (InputStream in = s.getInputStream()) {
                  while (in.read(buf) >= 0) {
                    // swallow, never answer
                  }
                } catch (IOException ignored) {
                  // the peer reset it
                } finally {
                  open.remove(s);
                  try {
                    s.close();
                  } catch (IOException ignored) {
                    // closed
                  }
                }
              },
              "fault-member-silent-reader");
      r.setDaemon(true);
      r.start();
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
