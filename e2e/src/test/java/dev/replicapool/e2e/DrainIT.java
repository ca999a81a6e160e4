package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Draining a member of each source, as the README's "Operating a member" tells a user to: kubectl
 * annotate a Pod or a Lease, kubectl patch a static endpoint's drain field. Within a second the
 * member is Draining in status (counted, not routable), an Event says who drained it, kubectl
 * describe prints it, and the data plane sends it no new request; undone, it is routable again.
 */
class DrainIT {
  static final String ANNOTATION_REASON = "drained by annotation replicapool.dev/drain";
  static SystemHarness h;

  @BeforeAll
  static void start() {
    h = new SystemHarness("drain");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aStaticEndpointDrainsWithItsDrainField() {
    List<ReplicaProcess> rs = h.replicas("st-a", "st-b", "st-c");
    h.client.resource(h.pool("static-drain", rs)).create();
    h.awaitReadyAndSynced("static-drain");
    // Ready needs one routable member, not three: the count below is of all three once probed.
    awaitRoutable("static-drain", 3);

    kubectl(
        "patch",
        "rp",
        "static-drain",
        "--type=json",
        "-p",
        "[{\"op\":\"add\",\"path\":\"/spec/endpoints/0/drain\",\"value\":true}]");
    assertDrained("static-drain", rs.get(0), "drained by drain: true in spec.endpoints", 3);

    kubectl(
        "patch",
        "rp",
        "static-drain",
        "--type=json",
        "-p",
        "[{\"op\":\"replace\",\"path\":\"/spec/endpoints/0/drain\",\"value\":false}]");
    assertRoutableAgain("static-drain", rs.get(0), 3);
  }

  /**
   * A request in flight to a member that is drained finishes there: weight 0 and Draining on the
   * data plane choose no new member, they cut no connection.
   */
  @Test
  void aRequestInFlightToADrainedMemberFinishes() throws Exception {
    List<ReplicaProcess> rs = h.replicas("fl-a", "fl-b");
    ReplicaPool pool = h.pool("inflight-drain", rs);
    // Slow members that still pass their probes: 1.5 s answers, 1.9 s probe timeout.
    pool.getSpec().healthCheck.intervalMillis = 2_000;
    pool.getSpec().healthCheck.timeoutMillis = 1_900;
    h.client.resource(pool).create();
    h.awaitReadyAndSynced("inflight-drain");
    for (ReplicaProcess r : rs) {
      adminPost(r, "/admin/slow?ms=1500");
    }

    CompletableFuture<KeepAliveClient.Response> inFlight =
        CompletableFuture.supplyAsync(
            () -> {
              try (KeepAliveClient c =
                  new KeepAliveClient("127.0.0.1", h.dataPlane.trafficPort())) {
                return c.get("inflight-drain.local", "/track/slow");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    String busy =
        await()
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> memberWithRequestInFlight("inflight-drain"), a -> a != null);
    int index = rs.get(0).address().equals(busy) ? 0 : 1;

    kubectl(
        "patch",
        "rp",
        "inflight-drain",
        "--type=json",
        "-p",
        "[{\"op\":\"add\",\"path\":\"/spec/endpoints/" + index + "/drain\",\"value\":true}]");
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () ->
                assertThat(dataPlaneMember("inflight-drain", busy).getString("state"))
                    .isEqualTo("Draining"));
    assertThat(inFlight).as("drained while the request was in flight").isNotDone();

    KeepAliveClient.Response answer = inFlight.get(10, TimeUnit.SECONDS);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.replica()).isEqualTo(rs.get(index).name());
  }

  private static void adminPost(ReplicaProcess r, String pathAndQuery) throws Exception {
    var response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://" + r.address() + pathAndQuery))
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
  }

  /** The pool's members as the data plane's /status shows them. */
  private static List<JsonObject> dataPlaneMembers(String pool) {
    JsonArray pools = h.dataPlaneStatus().getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      JsonObject p = pools.getJsonObject(i);
      if (p.getString("name").equals(h.namespace + "/" + pool)) {
        JsonArray members = p.getJsonArray("members");
        List<JsonObject> out = new ArrayList<>();
        for (int j = 0; j < members.size(); j++) {
          out.add(members.getJsonObject(j));
        }
        return out;
      }
    }
    throw new AssertionError(pool + " not on the data plane");
  }

  private static JsonObject dataPlaneMember(String pool, String address) {
    return dataPlaneMembers(pool).stream()
        .filter(m -> m.getString("address").equals(address))
        .findFirst()
        .orElseThrow(() -> new AssertionError(address + " not on the data plane"));
  }

  /** The address of the pool's member with a request in flight on the data plane, else null. */
  private static String memberWithRequestInFlight(String pool) {
    return dataPlaneMembers(pool).stream()
        .filter(m -> m.getInteger("inflight") > 0)
        .map(m -> m.getString("address"))
        .findFirst()
        .orElse(null);
  }

  @Test
  void aPodDrainsWithTheAnnotation() {
    int port = ReplicaProcess.freePort("127.0.0.31");
    List<ReplicaProcess> rs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String ip = "127.0.0." + (31 + i);
      rs.add(h.closeLater(ReplicaProcess.start("pod-" + i, ip, port)));
      pod("pod-" + i, ip);
    }
    ReplicaPool pool = h.pool("pod-drain", List.of());
    pool.getSpec().endpoints = null;
    pool.getSpec().selector = new LabelSelectorBuilder().addToMatchLabels("app", "drain").build();
    pool.getSpec().port = port;
    h.client.resource(pool).create();
    h.awaitReadyAndSynced("pod-drain");
    awaitRoutable("pod-drain", 3);

    kubectl("annotate", "pod", "pod-0", "replicapool.dev/drain=true");
    assertDrained("pod-drain", rs.get(0), ANNOTATION_REASON, 3);

    kubectl("annotate", "pod", "pod-0", "replicapool.dev/drain-");
    assertRoutableAgain("pod-drain", rs.get(0), 3);
  }

  @Test
  void aLeaseMemberDrainsWithTheAnnotationWhileItsRegistrarRenews() {
    List<ReplicaProcess> rs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      rs.add(
          h.closeLater(
              ReplicaProcess.startRegistered(
                  "le-" + i,
                  "127.0.0." + (41 + i),
                  h.namespace + "/lease-drain",
                  h.apiServer.kubeConfigFile(),
                  900,
                  300)));
    }
    ReplicaPool pool = h.pool("lease-drain", List.of());
    pool.getSpec().endpoints = null;
    pool.getSpec().registration = new Registration();
    h.client.resource(pool).create();
    h.awaitReadyAndSynced("lease-drain");
    awaitRoutable("lease-drain", 3);

    String lease = LeaseConventions.leaseName("lease-drain", "le-0");
    kubectl("annotate", "lease", lease, "replicapool.dev/drain=true");
    assertDrained("lease-drain", rs.get(0), ANNOTATION_REASON, 3);
    // Renewals (every 300 ms) leave the annotation alone: still drained two seconds later.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .untilAsserted(
            () -> assertThat(row("lease-drain", rs.get(0)).state).isEqualTo(MemberState.Draining));

    kubectl("annotate", "lease", lease, "replicapool.dev/drain-");
    assertRoutableAgain("lease-drain", rs.get(0), 3);
  }

  private void pod(String name, String ip) {
    Pod created =
        h.client
            .pods()
            .inNamespace(h.namespace)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels("app", "drain")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("tracking:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    // No kubelet: the test writes the status a kubelet would.
    created.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(ip)
            .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
            .build());
    h.client.pods().inNamespace(h.namespace).resource(created).updateStatus();
  }

  private static Kubectl.Result kubectl(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("-n");
    all.add(h.namespace);
    Kubectl.Result r = h.kubectl.run(all.toArray(String[]::new));
    assertThat(r.exitCode()).as("kubectl %s: %s", all, r.output()).isZero();
    return r;
  }

  private static EndpointStatus row(String pool, ReplicaProcess r) {
    return h.pool(pool).get().getStatus().endpoints.stream()
        .filter(e -> e.address.equals(r.address()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(r.address() + " not in the status"));
  }

  private static void awaitRoutable(String pool, int routable) {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(h.pool(pool).get().getStatus().routable).isEqualTo(routable));
  }

  private static void assertDrained(String pool, ReplicaProcess drained, String reason, int total) {
    long start = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              EndpointStatus e = row(pool, drained);
              assertThat(e.state).isEqualTo(MemberState.Draining);
              assertThat(e.message).isEqualTo(reason);
              assertThat(e.weight).isZero();
            });
    System.out.printf(
        "%s: %s Draining in status after %d ms%n",
        pool, drained.name(), (System.nanoTime() - start) / 1_000_000);
    ReplicaPool p = h.pool(pool).get();
    assertThat(p.getStatus().registered).as("a drained member is counted").isEqualTo(total);
    assertThat(p.getStatus().routable).as("but not routable").isEqualTo(total - 1);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(h.client.v1().events().inNamespace(h.namespace).list().getItems())
                    .anySatisfy(
                        ev -> {
                          assertThat(ev.getReason()).isEqualTo("MemberDraining");
                          assertThat(ev.getType()).isEqualTo("Normal");
                          assertThat(ev.getInvolvedObject().getName()).isEqualTo(pool);
                          assertThat(ev.getMessage()).contains(drained.address(), reason);
                        }));
    assertThat(kubectl("describe", "rp", pool).stdout()).contains("Draining", reason);
    // The data plane applies the push within a second or two; from then on no new request.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(h.sequential(pool + ".local", 12)).doesNotContainKey(drained.name()));
    Map<String, Integer> counts = h.sequential(pool + ".local", 60);
    assertThat(counts).doesNotContainKey(drained.name());
    assertThat(counts.values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(60)
        .isEqualTo(
            counts.entrySet().stream()
                .filter(en -> !en.getKey().startsWith("!"))
                .mapToInt(Map.Entry::getValue)
                .sum());
  }

  private static void assertRoutableAgain(String pool, ReplicaProcess r, int total) {
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              EndpointStatus e = row(pool, r);
              assertThat(e.state).isIn(MemberState.Healthy, MemberState.Degraded);
              assertThat(e.weight).isPositive();
            });
    awaitRoutable(pool, total);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(h.sequential(pool + ".local", 12)).containsKey(r.name()));
  }
}
