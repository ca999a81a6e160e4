package dev.replicapool.dataplane.upstream;

import dev.replicapool.dataplane.config.UpstreamTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.AddressResolverGroup;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/1.1 connections of one event loop to every member: kept alive between requests and
 * reused last-in first-out (the warmest first), at most {@code maxIdlePerMember} of them idle per
 * member, closed after the keep-alive time idle. A request and its member connection stay on one
 * event loop, so nothing here is shared between threads.
 *
 * <p>Keyed by member address: pools that share a member share its connections.
 */
public final class MemberConnections implements H1Upstream.Home {
  /** How connections are made: shared by every event loop's pool. */
  public record Dialer(
      ChannelFactory<? extends Channel> channels,
      AddressResolverGroup<InetSocketAddress> resolver,
      int connectTimeoutMillis,
      long keepAliveNanos,
      int maxIdlePerMember) {

    /** A bootstrap for member connections on {@code loop}. */
    Bootstrap bootstrap(EventLoop loop) {
      return new Bootstrap()
          .group(loop)
          .channelFactory(channels)
          .resolver(resolver)
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.SO_KEEPALIVE, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis);
    }
  }

  private final EventLoop loop;
  private final Dialer dialer;
  private final Bootstrap bootstrap;
  private final Map<Object, ArrayDeque<H1Upstream>> idle = new HashMap<>();
  private boolean sweeping;

  public MemberConnections(EventLoop loop, Dialer dialer) {
    this.loop = loop;
    this.dialer = dialer;
    this.bootstrap = dialer.bootstrap(loop);
  }

  /** An idle connection to {@code address}, or null. */
  public H1Upstream poll(String address) {
    ArrayDeque<H1Upstream> q = idle.get(address);
    if (q == null) {
      return null;
    }
    H1Upstream c;
    while ((c = q.pollFirst()) != null) {
      if (c.channel().isActive()) {
        c.pooled = false;
        return c;
      }
    }
    return null;
  }

  /**
   * Opens a connection; {@code done} gets it once connected (after the TLS handshake with {@code
   * tls}), or the failure: nothing was sent either way.
   *
   * @param key what the connection is pooled under (see {@link #poll})
   * @param tls TLS to the member, or null
   */
  public void connect(String key, String host, int port, UpstreamTls tls, ConnectListener done) {
    H1Upstream handler = new H1Upstream(this, key);
    SslHandler[] ssl = {null};
    ChannelFuture f =
        bootstrap
            .clone()
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      ssl[0] = tls.handler(ch.alloc(), host, port, false);
                      ch.pipeline().addLast("tls", ssl[0]);
                    }
                    ch.pipeline().addLast("member", handler);
                  }
                })
            .connect(InetSocketAddress.createUnresolved(host, port));
    f.addListener(
        x -> {
          if (!f.isSuccess()) {
            done.failed(f.cause());
          } else if (ssl[0] == null) {
            done.connected(handler);
          } else {
            ssl[0]
                .handshakeFuture()
                .addListener(
                    h -> {
                      if (h.isSuccess()) {
                        done.connected(handler);
                      } else {
                        f.channel().close();
                        done.failed(h.cause());
                      }
                    });
          }
        });
  }

  public interface ConnectListener {
    void connected(H1Upstream connection);

    void failed(Throwable cause);
  }

  @Override
  public void giveBack(H1Upstream c) {
    ArrayDeque<H1Upstream> q = idle.computeIfAbsent(c.key, k -> new ArrayDeque<>());
    if (q.size() >= dialer.maxIdlePerMember()) {
      c.channel().close(); // enough kept for this member on this loop
      return;
    }
    c.pooled = true;
    c.idleSinceNanos = System.nanoTime();
    q.addFirst(c);
    if (!sweeping) {
      sweeping = true;
      loop.schedule(this::sweep, 1, TimeUnit.SECONDS);
    }
  }

  @Override
  public void closed(H1Upstream c) {
    if (c.pooled) {
      ArrayDeque<H1Upstream> q = idle.get(c.key);
      if (q != null) {
        q.remove(c);
        if (q.isEmpty()) {
          idle.remove(c.key);
        }
      }
    }
  }

  /** Closes connections idle longer than the keep-alive time; runs while any is idle. */
  private void sweep() {
    long now = System.nanoTime();
    idle.values()
        .removeIf(
            q -> {
              H1Upstream c;
              while ((c = q.peekLast()) != null
                  && now - c.idleSinceNanos > dialer.keepAliveNanos()) {
                q.pollLast();
                c.pooled = false;
                c.channel().close();
              }
              return q.isEmpty();
            });
    if (idle.isEmpty()) {
      sweeping = false;
    } else {
      loop.schedule(this::sweep, 1, TimeUnit.SECONDS);
    }
  }

  /** Idle connections now, all members together (for tests and /status). */
  public int idleCount() {
    int n = 0;
    for (ArrayDeque<H1Upstream> q : idle.values()) {
      n += q.size();
    }
    return n;
  }
}
