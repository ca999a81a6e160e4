package dev.replicapool.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

/**
 * The ports of one local run, from the flags or their defaults, and the check that all are free.
 */
record LocalPorts(int traffic, int admin, int operator, int operatorAdmin) {
  static LocalPorts of(Map<String, String> flags) {
    return new LocalPorts(
        port(flags, "traffic-port", 8080),
        port(flags, "admin-port", 9901),
        port(flags, "operator-port", 18000),
        port(flags, "operator-admin", 8090));
  }

  /** Every port the run listens on, the replicas' and the example pools' included, is free. */
  void requireFree() {
    for (int p :
        List.of(traffic, admin, operator, operatorAdmin, 18080, LocalRunMain.GRPC_ROUTE_PORT)) {
      requireFree(p);
    }
    for (String[] r : LocalRunMain.STATIC_REPLICAS) {
      requireFree(Integer.parseInt(r[1]));
      requireFree(Integer.parseInt(r[2]));
    }
    for (String[] r : LocalRunMain.LEASE_REPLICAS) {
      requireFree(Integer.parseInt(r[1]));
    }
  }

  private static int port(Map<String, String> flags, String name, int fallback) {
    String v = flags.get(name);
    try {
      return v == null ? fallback : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " takes a port number, got " + v);
    }
  }

  private static void requireFree(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", port));
    } catch (IOException e) {
      throw new LocalRunMain.Failure(
          "port " + port + " on 127.0.0.1 is in use",
          "stop what listens there (`ss -ltnp 'sport = :"
              + port
              + "'` shows it) or choose another port with the flags in --help",
          e);
    }
  }
}
