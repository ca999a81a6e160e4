package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.accesslog.AccessRecord;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.route.Routes;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.tracing.RequestTrace;
import dev.replicapool.dataplane.wire.RequestHead;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;

/**
 * Where a parsed HTTP/1.x request head goes: the route to its pool (or the proxy's own answer), and
 * the {@link Http1Exchange} that forwards it there, with the head as the member gets it. Called by
 * {@link Http1Connection} once per request; it holds nothing.
 */
final class Http1Routing {
  private static final byte[] HTTP = "http".getBytes();
  private static final byte[] HTTPS = "https".getBytes();

  /** A traceparent's length (version 00), held in a traced head until its try writes its own. */
  private static final String TRACEPARENT_PLACEHOLDER =
      "00-00000000000000000000000000000000-0000000000000000-00";

  private Http1Routing() {}

  /** The route of {@code head}; one with a message is answered by the proxy itself. */
  static Routes.Route route(Forwarding fw, String dedicatedPool, RequestHead head) {
    boolean looped = head.viaContains(fw.viaBytes);
    Routes.Route r = Routes.find(fw.table.get(), dedicatedPool, head.host(), looped, fw.viaName);
    PoolRuntime pool = r.pool();
    if (r.message() == null && pool.websocketOnly() && !head.upgrade()) {
      r = new Routes.Route(pool, 426, "pool " + pool.name() + " takes WebSocket upgrades only");
    }
    return r;
  }

  /** The exchange that forwards {@code head} to {@code pool}; not started yet. */
  static Http1Exchange exchange(
      Http1Exchange.Client client,
      Forwarding fw,
      Http1Setup setup,
      PoolRuntime pool,
      RequestHead head,
      ResponseHead resp,
      String clientAddress,
      boolean closeAfter,
      boolean sentContinue) {
    ByteBuf up = client.alloc().buffer(head.length() + 160);
    RequestTrace.Incoming traced = null;
    String placeholder = null;
    if (fw.tracing != null) {
      String target = head.target();
      traced =
          new RequestTrace.Incoming(
              head.header("traceparent"),
              head.header("tracestate"),
              methodName(head),
              setup.tls() ? "https" : "http",
              target,
              head.host());
      placeholder = TRACEPARENT_PLACEHOLDER; // each try writes its own over it
    }
    int traceparentAt =
        head.writeUpstream(
            up,
            clientAddress,
            setup.tls() ? HTTPS : HTTP,
            setup.overH2() ? fw.via2 : head.http10() ? fw.via10 : fw.via11,
            null,
            placeholder);
    Http1Exchange ex =
        new Http1Exchange(
            client,
            fw,
            pool,
            up,
            traceparentAt,
            traced,
            pool.requests().idempotent().method(methodName(head)),
            head.bodyless(),
            head.framing() == RequestHead.Framing.CHUNKED,
            head.method() == RequestHead.Method.HEAD,
            head.upgrade(),
            closeAfter,
            sentContinue,
            resp,
            hashKey(pool, head, clientAddress));
    AccessRecord log = ex.record().log();
    if (log != null) {
      describe(log, setup, head, clientAddress);
    }
    return ex;
  }

  /**
   * Logs a request the proxy answers itself before any exchange (no route, a loop, a pool that
   * takes WebSocket only), when the access log takes it.
   */
  static void logLocal(
      Forwarding fw, Http1Setup setup, RequestHead head, Routes.Route r, String clientAddress) {
    PoolRuntime pool = r.pool();
    long now = fw.clock.getAsLong();
    AccessRecord log =
        fw.accessLog.begin(
            pool == null ? null : pool.name(),
            pool == null ? null : pool.snapshot().accessLog(),
            fw.observer,
            now);
    if (log == null) {
      return;
    }
    describe(log, setup, head, clientAddress);
    log.local(pool == null ? AccessFlag.NR : r.status() == 508 ? AccessFlag.LP : null);
    fw.accessLog.end(log, r.status(), now);
  }

  private static void describe(
      AccessRecord log, Http1Setup setup, RequestHead head, String clientAddress) {
    String protocol = setup.overH2() ? "HTTP/2" : head.http10() ? "HTTP/1.0" : "HTTP/1.1";
    log.request(clientAddress, protocol, methodName(head), head.host(), head.target())
        .traceparent(head.header("traceparent"));
  }

  private static String methodName(RequestHead head) {
    RequestHead.Method m = head.method();
    return m == RequestHead.Method.OTHER ? head.methodName() : m.name();
  }

  private static HashKey.Key hashKey(PoolRuntime pool, RequestHead head, String clientAddress) {
    HashKey k = pool.router().hashKey();
    return k == null ? HashKey.Key.NONE : k.of(head::header, clientAddress);
  }
}
