package dev.replicapool.dataplane.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.RoutingTableTest;
import org.junit.jupiter.api.Test;

/** Which pool a request goes to, or what the proxy answers itself. */
class RoutesTest {
  static final RoutingTable TABLE =
      RoutingTable.EMPTY
          .with(RoutingTableTest.pool("shop/a", null, "a.example"))
          .with(RoutingTableTest.pool("shop/port", 18080));

  @Test
  void byHostIgnoringCaseAndPort() {
    assertThat(Routes.find(TABLE, null, "A.Example:8080", false, "rp-x").pool().name())
        .isEqualTo("shop/a");
  }

  @Test
  void aDedicatedPortServesItsPoolWhateverTheHost() {
    assertThat(Routes.find(TABLE, "shop/port", "a.example", false, "rp-x").pool().name())
        .isEqualTo("shop/port");
  }

  @Test
  void noPoolIs404SayingWhy() {
    Routes.Route r = Routes.find(TABLE, null, "b.example", false, "rp-x");
    assertThat(r.pool()).isNull();
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.message()).isEqualTo("no pool matches host b.example");
    assertThat(Routes.find(TABLE, null, null, false, "rp-x").message())
        .isEqualTo("no pool matches a request without Host");
    assertThat(Routes.find(TABLE, "shop/gone", "a.example", false, "rp-x").message())
        .isEqualTo("pool shop/gone is no longer served on this port");
  }

  @Test
  void aRequestThatLoopedBackIs508NamingThePool() {
    Routes.Route r = Routes.find(TABLE, null, "a.example", true, "rp-x");
    assertThat(r.status()).isEqualTo(508);
    assertThat(r.message()).contains("Via rp-x").contains("pool shop/a");
  }
}
