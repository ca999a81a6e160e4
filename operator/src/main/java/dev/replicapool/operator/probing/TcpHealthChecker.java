package dev.replicapool.operator.probing;

import io.vertx.core.Vertx;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;

/**
 * A TCP connect to the member; passes when the connection is established, then closes it at once.
 * Nothing is sent, not even a TLS handshake for TLS members: it proves a listener, nothing more.
 * Every check is a new connection, so each counts against the prober's connect limit.
 */
final class TcpHealthChecker implements HealthChecker {
  private final NetClient client;

  TcpHealthChecker(Vertx vertx) {
    this.client =
        vertx.createNetClient(
            new NetClientOptions()
                .setConnectTimeout(Prober.CONNECT_TIMEOUT_MILLIS)
                .setTcpNoDelay(true));
  }

  @Override
  public MemberCheck prepare(String host, int port, ProbeSpec spec, long timeoutMillis) {
    // A connect may not outlive its probe by much: the probe has failed by then.
    int connectTimeout = (int) Math.min(Prober.CONNECT_TIMEOUT_MILLIS, timeoutMillis + 100);
    ConnectOptions options =
        new ConnectOptions().setHost(host).setPort(port).setTimeout(connectTimeout);
    return (events, done) -> { // nothing kept to watch: a connect each time
      Run run = new Run();
      client
          .connect(options)
          .onComplete(
              ar -> {
                if (ar.failed()) {
                  done.handle(CheckOutcome.noResponse(ar.cause()));
                  return;
                }
                NetSocket socket = ar.result();
                socket.close();
                done.handle(
                    run.aborted
                        ? CheckOutcome.failed(-1, ProbeCause.OTHER, "aborted", false)
                        : CheckOutcome.passed(-1, false));
              });
      return run;
    };
  }

  io.vertx.core.Future<Void> close() {
    return client.close();
  }

  /** A connect in flight; it cannot be cancelled, so its socket is closed when it completes. */
  private static final class Run implements Running {
    boolean aborted;

    @Override
    public void abort() {
      aborted = true;
    }
  }
}
