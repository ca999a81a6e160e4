package dev.replicapool.dataplane;

import org.junit.jupiter.api.Test;

class SmokeIT extends DataPlaneTestBase {
  static final String HOST = "tracking.shop.example";

  SnapshotBuilder tracking() {
    return SnapshotBuilder.pool("shop/tracking").hosts(HOST);
  }

  @Test
  void smoke() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    startDataPlane();
    publish(tracking().members(k1.snapshot(1), k2.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      for (int i = 0; i < 5; i++) {
        long t = System.nanoTime();
        RawHttp.Response r = c.get(HOST, "/track/" + i);
        System.out.println(
            "SMOKE "
                + i
                + " "
                + r.status()
                + " "
                + r.headers()
                + " "
                + (System.nanoTime() - t) / 1000
                + "us");
      }
    }
  }
}
