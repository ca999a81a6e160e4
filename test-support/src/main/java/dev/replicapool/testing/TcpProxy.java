package dev.replicapool.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder on a loopback port that a test can cut and restore: while cut, the port refuses
 * connections and every connection that went through it is closed, exactly what a client sees when
 * the server behind it stops; restored, it listens on the same port again. TLS passes through
 * untouched, so it can stand between a client and an HTTPS server (the kube-apiserver) as well.
 */
public final class TcpProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile ServerSocket server;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort, int port) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.port = port;
  }

  /** Forwards 127.0.0.1:(a free port) to the target. */
  public static TcpProxy start(String targetHost, int targetPort) {
    TcpProxy p = new TcpProxy(targetHost, targetPort, ReplicaProcess.freePort("127.0.0.1"));
    p.listen();
    return p;
  }

  public int port() {
    return port;
  }

  /** Connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** Connections open through the proxy now. */
  public int openConnections() {
    return open.size() / 2;
  }

  public boolean isCut() {
    return server == null;
  }

  /** Stops listening and closes every connection: new connects are refused. */
  public synchronized void cut() {
    ServerSocket s = server;
    server = null;
    closeQuietly(s);
    for (Socket c : open) {
      closeQuietly(c);
    }
    open.clear();
  }

  /** Listens again on the same port. */
  public synchronized void restore() {
    if (server == null && !closed) {
      listen();
    }
  }

  private synchronized void listen() {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 512);
      server = s;
      Thread t = new Thread(() -> acceptLoop(s), "tcp-proxy-" + port + "-accept");
      t.setDaemon(true);
      t.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port, e);
    }
  }

  private void acceptLoop(ServerSocket s) {
    while (!s.isClosed()) {
      Socket client;
      try {
        client = s.accept();
      } catch (IOException e) {
        return; // cut or closed
      }
      accepted.incrementAndGet();
      Socket upstream;
      try {
        upstream = new Socket(targetHost, targetPort);
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      if (server != s) {
        closeQuietly(client);
        closeQuietly(upstream);
        return;
      }
      open.add(client);
      open.add(upstream);
      pump(client, upstream);
      pump(upstream, client);
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException ignored) {
                // either side went away
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-" + port + "-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    cut();
  }
}
