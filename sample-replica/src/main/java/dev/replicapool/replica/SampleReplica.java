package dev.replicapool.replica;

import io.soabase.recordbuilder.core.RecordBuilder;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sample replica: a Vert.x HTTP server (HTTP/1.1 keep-alive and h2c) that answers tracking
 * requests with its name in an {@code x-replica} header and can be told, through {@code /admin/},
 * to go slow, fail, report itself unhealthy or freeze.
 *
 * <pre>
 * GET  /track/&lt;id&gt; and any other path  200 {"replica":"k1","id":"&lt;id&gt;","status":"in transit"}
 * GET  /healthz, /health                200 {"status":"ok"} or 503 {"status":"unhealthy"}
 * POST /admin/slow?ms=200               add latency to every response (0: off)
 * POST /admin/errors?rate=0.2           answer that share of requests with 500
 * POST /admin/unhealthy, /admin/healthy flip the health flag (health endpoint and lease)
 * POST /admin/freeze?ms=3000            hold every request but /admin for that long
 * POST /admin/reset                     all of the above off
 * GET  /admin/state                     the current settings
 * </pre>
 *
 * Latency, errors and freeze apply to every path but /admin, health endpoints included, so that
 * probes see what traffic sees. With a gRPC port it also serves gRPC ({@link GrpcSide}): the
 * standard grpc.health.v1 service following the health flag, and the unary method {@code
 * replicapool.sample.Tracking/Track}. Start it in-process with {@link #start(Options)}; {@link
 * SampleReplicaMain} is the command line.
 */
public final class SampleReplica implements AutoCloseable {
  private final Options options;
  private final Vertx vertx;
  private final ReplicaState state;
  private final int port;
  private final GrpcSide grpc;
  private volatile int agentPort = -1;

  private SampleReplica(Options options, Vertx vertx, ReplicaState state, int port, GrpcSide grpc) {
    this.options = options;
    this.vertx = vertx;
    this.state = state;
    this.port = port;
    this.grpc = grpc;
  }

  /**
   * How to run a replica. {@code port} 0 picks a free port; {@code threads} is the number of event
   * loops; {@code random} decides which requests fail when errors are injected (seed it for
   * reproducible tests); {@code grpcPort} is the port of the gRPC side, 0 for any free one, -1 for
   * none.
   */
  @RecordBuilder
  public record Options(
      String name, String host, int port, int threads, Random random, int grpcPort) {
    public Options {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("replica name must not be empty");
      }
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("host must not be empty");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1, got " + threads);
      }
      Objects.requireNonNull(random, "random");
      if (grpcPort < -1 || grpcPort > 65535) {
        throw new IllegalArgumentException("grpcPort must be -1 (off) or 0 to 65535");
      }
    }

    /** Without the gRPC side. */
    public Options(String name, String host, int port, int threads, Random random) {
      this(name, host, port, threads, random, -1);
    }

    /** 127.0.0.1, a free port, one event loop, an unseeded random, no gRPC. */
    public static Options of(String name) {
      return new Options(name, "127.0.0.1", 0, 1, new Random());
    }

    public Options withHost(String host) {
      return edit().host(host).build();
    }

    public Options withPort(int port) {
      return edit().port(port).build();
    }

    public Options withThreads(int threads) {
      return edit().threads(threads).build();
    }

    public Options withRandom(Random random) {
      return edit().random(random).build();
    }

    /** Serves gRPC as well on this port (0: any free one). */
    public Options withGrpcPort(int grpcPort) {
      return edit().grpcPort(grpcPort).build();
    }

    private SampleReplicaOptionsBuilder edit() {
      return SampleReplicaOptionsBuilder.builder(this);
    }
  }

  /**
   * Starts the replica and returns once it listens. Throws {@link IllegalStateException} (with the
   * cause, such as "Address already in use") when it cannot.
   */
  public static SampleReplica start(Options options) {
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions().setEventLoopPoolSize(options.threads()).setWorkerPoolSize(2));
    ReplicaState state = new ReplicaState();
    try {
      // One verticle per event loop, all on one port; Vert.x spreads connections across them.
      // Port 0 would give each its own random port: a negative port makes them share one.
      int bindPort = options.port() == 0 ? -1 : options.port();
      AtomicInteger actualPort = new AtomicInteger();
      await(
          vertx.deployVerticle(
              () -> new ReplicaVerticle(options, bindPort, state, actualPort),
              new DeploymentOptions().setInstances(options.threads())));
      int port = actualPort.get();
      GrpcSide grpc =
          options.grpcPort() < 0
              ? null
              : new GrpcSide(
                  options.name(), options.host(), options.grpcPort(), state, options.random());
      return new SampleReplica(options, vertx, state, port, grpc);
    } catch (RuntimeException e) {
      vertx.close();
      throw new IllegalStateException(
          "cannot listen on "
              + options.host()
              + ":"
              + options.port()
              + ": "
              + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()),
          e);
    }
  }

  private static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  public String name() {
    return options.name();
  }

  public String host() {
    return options.host();
  }

  /** The port it listens on (the picked one when started with port 0). */
  public int port() {
    return port;
  }

  /** {@code host:port} as it listens. */
  public String address() {
    return address(port);
  }

  /** The port of the gRPC side, -1 when it has none. */
  public int grpcPort() {
    return grpc == null ? -1 : grpc.port();
  }

  /** {@code host:port} of the gRPC side, null when it has none. */
  public String grpcAddress() {
    return grpc == null ? null : address(grpc.port());
  }

  private String address(int port) {
    String host = options.host();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /**
   * Answers HAProxy's {@code agent-check} on {@code port} (0: any free one) of its host: each
   * connection gets the idle share of its workers as a weight ("75%\n", "100%\n" without a
   * capacity) and is closed, as HAProxy's agent protocol expects. Returns the port.
   */
  public int serveAgentCheck(int port) {
    agentPort =
        await(
                vertx
                    .createNetServer()
                    .connectHandler(
                        socket -> {
                          Capacity c = state.capacity();
                          socket.end(Buffer.buffer(c == null ? "100%\n" : c.agentReply()));
                        })
                    .listen(port, options.host()))
            .actualPort();
    return agentPort;
  }

  /** {@code host:port} of its agent-check answers, null when it gives none. */
  public String agentAddress() {
    return agentPort < 0 ? null : address(agentPort);
  }

  /** The knobs: the same ones /admin/ turns. */
  public ReplicaState state() {
    return state;
  }

  /** Stops listening and frees its threads; waits up to 10 s. */
  @Override
  public void close() {
    if (grpc != null) {
      grpc.close();
    }
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // best effort: the process is going away or the test is over
    }
  }

  private static final class ReplicaVerticle extends VerticleBase {
    private final Options options;
    private final int port;
    private final ReplicaState state;
    private final AtomicInteger actualPort;

    ReplicaVerticle(Options options, int port, ReplicaState state, AtomicInteger actualPort) {
      this.options = options;
      this.port = port;
      this.state = state;
      this.actualPort = actualPort;
    }

    @Override
    public Future<?> start() {
      HttpServerOptions serverOptions =
          new HttpServerOptions()
              .setHost(options.host())
              .setPort(port)
              .setHttp2ClearTextEnabled(true)
              .setTcpNoDelay(true)
              .setReuseAddress(true);
      ReplicaHandler handler =
          new ReplicaHandler(vertx, context, options.name(), state, options.random());
      Future<HttpServer> listening =
          vertx.createHttpServer(serverOptions).requestHandler(handler).listen();
      return listening.onSuccess(server -> actualPort.set(server.actualPort()));
    }
  }
}
