package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.tracing.Tracing;
import dev.replicapool.dataplane.upstream.H2MemberConnections;
import dev.replicapool.dataplane.upstream.MemberConnections;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What every client connection of the data plane shares: settings, the live routing table, the
 * metrics observer, this proxy's Via pseudonym and, per event loop, the connections to members.
 */
public final class Forwarding {
  final ProxySettings settings;
  final Supplier<RoutingTable> table;
  final ProxyObserver observer;
  final LongSupplier clock;
  final String viaName;
  final byte[] viaBytes;
  final byte[] via11;
  final byte[] via10;
  final byte[] via2;
  final Tunnels tunnels;
  final H2ConnectionErrors h2Errors;
  final AccessLog accessLog;

  /** Null when tracing is off: then no request has a trace. */
  final Tracing tracing;

  private final MemberConnections.Dialer dialer;
  private final FastThreadLocal<MemberConnections> perLoop =
      new FastThreadLocal<>() {
        @Override
        protected MemberConnections initialValue() {
          throw new IllegalStateException("member connections are made on their event loop");
        }
      };

  public Forwarding(
      ProxySettings settings,
      Supplier<RoutingTable> table,
      ProxyObserver observer,
      LongSupplier clock,
      String viaName,
      MemberConnections.Dialer dialer,
      AccessLog accessLog,
      Tracing tracing) {
    this.settings = settings;
    this.table = table;
    this.observer = observer;
    this.clock = clock;
    this.viaName = viaName;
    this.viaBytes = viaName.getBytes(StandardCharsets.ISO_8859_1);
    this.via11 = ("via: 1.1 " + viaName).getBytes(StandardCharsets.ISO_8859_1);
    this.via10 = ("via: 1.0 " + viaName).getBytes(StandardCharsets.ISO_8859_1);
    this.via2 = ("via: 2 " + viaName).getBytes(StandardCharsets.ISO_8859_1);
    this.dialer = dialer;
    this.tunnels = new Tunnels();
    this.h2Errors = new H2ConnectionErrors(observer, clock);
    this.accessLog = accessLog;
    this.tracing = tracing;
  }

  /** The member connections of the calling event loop. */
  MemberConnections connections(EventLoop loop) {
    if (perLoop.isSet()) {
      return perLoop.get();
    }
    MemberConnections c = new MemberConnections(loop, dialer);
    perLoop.set(c);
    return c;
  }

  private volatile boolean draining;

  /** From now on every connection closes after its current response. */
  public void drain() {
    draining = true;
  }

  boolean draining() {
    return draining;
  }

  private final FastThreadLocal<H2MemberConnections> h2PerLoop = new FastThreadLocal<>();

  /** The HTTP/2 member connections of the calling event loop. */
  H2MemberConnections h2Connections(EventLoop loop) {
    H2MemberConnections c = h2PerLoop.get();
    if (c == null) {
      c = new H2MemberConnections(loop, dialer);
      h2PerLoop.set(c);
    }
    return c;
  }

  public Tunnels tunnels() {
    return tunnels;
  }

  public ProxySettings settings() {
    return settings;
  }
}
