package dev.replicapool.dataplane.listen;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** One traffic port: its server channels (one per event loop with SO_REUSEPORT) and connections. */
final class Listener {
  final String pool;
  final boolean tls;
  volatile int port;
  final List<Channel> servers = new CopyOnWriteArrayList<>();
  final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  Listener(String pool, boolean tls) {
    this.pool = pool;
    this.tls = tls;
  }

  /** Closes the server channels and every connection at once, without a drain. */
  void closeNow() {
    servers.forEach(Channel::close);
    connections.close();
  }
}
