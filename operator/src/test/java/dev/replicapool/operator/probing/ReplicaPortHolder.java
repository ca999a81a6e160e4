package dev.replicapool.operator.probing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports on 127.0.0.1 that nothing listens on (bound once, then released). */
final class ReplicaPortHolder {
  private ReplicaPortHolder() {}

  static int unusedPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
