package dev.replicapool.dataplane;

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
}
