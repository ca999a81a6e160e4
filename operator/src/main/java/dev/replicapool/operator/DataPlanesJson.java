package dev.replicapool.operator;

import dev.replicapool.controlplane.ConnectedDataPlane;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The admin port's /dataplanes: every data plane connected to this operator replica, with what it
 * applied of each pool and its last answer, so that "which data planes run my edit, and which
 * refused it, why" has an answer without reading logs.
 *
 * <pre>{@code
 * {"dataPlanes": [{"name": "dp-a", "group": "default", "remote": "10.0.0.7:51234",
 *   "connectedSince": "2026-...Z",
 *   "pools": {"shop/web": {"appliedVersion": 17, "latestVersion": 18,
 *                          "rejectedVersion": 18, "rejectedReason": "host ... already routed"}},
 *   "lastAnswer": {"type": "nack", "pool": "shop/web", "version": 18, "reason": "...", "at": "..."}}]}
 * }</pre>
 */
final class DataPlanesJson {
  private DataPlanesJson() {}

  static JsonObject render(List<ConnectedDataPlane> dataPlanes) {
    JsonArray out = new JsonArray();
    for (ConnectedDataPlane d : dataPlanes) {
      JsonObject pools = new JsonObject();
      d.pools()
          .forEach(
              (name, p) -> {
                JsonObject pool =
                    new JsonObject()
                        .put("appliedVersion", p.appliedVersion())
                        .put("latestVersion", p.latestVersion())
                        .put(
                            "upToDate",
                            p.latestVersion() > 0 && p.appliedVersion() >= p.latestVersion());
                if (p.rejectedReason() != null) {
                  pool.put("rejectedVersion", p.rejectedVersion())
                      .put("rejectedReason", p.rejectedReason());
                }
                pools.put(name, pool);
              });
      JsonObject row =
          new JsonObject()
              .put("name", d.node())
              .put("group", d.group())
              .put("remote", d.remote())
              .put("connectedSince", d.connectedSince().toString())
              .put("pools", pools);
      ConnectedDataPlane.Answer a = d.lastAnswer();
      if (a != null) {
        JsonObject answer =
            new JsonObject()
                .put("type", a.accepted() ? "ack" : "nack")
                .put("pool", a.pool())
                .put("version", a.version())
                .put("at", a.at().toString());
        if (a.reason() != null) {
          answer.put("reason", a.reason());
        }
        row.put("lastAnswer", answer);
      }
      out.add(row);
    }
    return new JsonObject().put("dataPlanes", out);
  }
}
