package dev.replicapool.dataplane;

import dev.replicapool.dataplane.training.WarmUp;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar replicapool-dataplane.jar --control-plane HOST:PORT --token-file PATH ...} */
public final class DataPlaneMain {
  private static final Logger log = LoggerFactory.getLogger(DataPlaneMain.class);

  private DataPlaneMain() {}

  public static void main(String[] args) {
    DataPlane.Config config;
    try {
      config = DataPlaneArgs.parse(args, System.getenv());
    } catch (DataPlaneArgs.UsageException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println("error: " + e.getMessage());
      }
      System.err.print(DataPlaneArgs.USAGE);
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    }
    // The native transport (epoll) where it loads: fewer syscalls per request, SO_REUSEPORT.
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    DataPlane dp;
    try {
      dp = DataPlane.start(vertx, config).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.error("data plane failed to start: {}", e.getMessage());
      vertx.close();
      System.exit(1);
      return;
    }
    warmUp(vertx, dp, config.proxy().warmUpMillis());
    long drain = config.proxy().drainMillis();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    dp.stop().await(drain + 5_000, TimeUnit.MILLISECONDS);
                  } catch (Exception e) {
                    log.warn("drain did not finish: {}", e.toString());
                  }
                  vertx.close().await();
                },
                "replicapool-drain"));
  }

  /**
   * Sends requests through a copy of the data plane on loopback for {@code millis} while {@code dp}
   * says it is not ready, so that its request paths are compiled when traffic comes; then {@code
   * dp} may say it is ready. A warm-up that fails only costs speed: it is logged, and ready is not
   * held back for it.
   */
  private static void warmUp(Vertx vertx, DataPlane dp, long millis) {
    if (millis <= 0) {
      return;
    }
    long start = System.nanoTime();
    try {
      int routed = WarmUp.run(vertx, millis);
      log.info(
          "warm-up done: {} requests through a loopback copy in {} ms",
          routed,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    } catch (Exception e) {
      log.warn("warm-up failed, ready without it: {}", e.toString());
    } finally {
      dp.warmedUp();
    }
  }
}
