package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sample replica's gRPC side, called with a real grpc-java client. */
class GrpcSideTest {
  SampleReplica replica;
  ManagedChannel channel;

  @BeforeEach
  void start() {
    replica =
        SampleReplica.start(
            SampleReplica.Options.of("k1").withRandom(new Random(1)).withGrpcPort(0));
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", replica.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    replica.close();
  }

  ServingStatus health(String service) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  String track(String id, AtomicReference<Metadata> headers) {
    return track(id, headers, new AtomicReference<>());
  }

  String track(String id, AtomicReference<Metadata> headers, AtomicReference<Metadata> trailers) {
    var ch =
        ClientInterceptors.intercept(
            channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    return ClientCalls.blockingUnaryCall(
        ch, GrpcSide.TRACK, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), id);
  }

  @Test
  void trackAnswersWithTheReplicaName() {
    AtomicReference<Metadata> headers = new AtomicReference<>();
    assertThat(track("PKG-1", headers))
        .isEqualTo("{\"replica\":\"k1\",\"id\":\"PKG-1\",\"status\":\"in transit\"}");
    assertThat(headers.get().get(GrpcSide.REPLICA_HEADER)).isEqualTo("k1");
    assertThat(GrpcSide.TRACK.getFullMethodName()).isEqualTo("replicapool.sample.Tracking/Track");
    assertThat(replica.grpcAddress()).isEqualTo("127.0.0.1:" + replica.grpcPort());
  }

  @Test
  void healthFollowsTheAdminSwitch() {
    assertThat(health("")).isEqualTo(ServingStatus.SERVING);
    assertThat(health(GrpcSide.SERVICE)).isEqualTo(ServingStatus.SERVING);
    replica.state().healthy(false);
    assertThat(health("")).isEqualTo(ServingStatus.NOT_SERVING);
    replica.state().reset();
    assertThat(health("")).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void injectedErrorsAreUnavailable() {
    replica.state().errors(1.0);
    assertThatThrownBy(() -> track("PKG-2", new AtomicReference<>()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(replica.state().injectedErrors()).isEqualTo(1);
  }

  @Test
  void withACapacityCallsHoldAWorkerAndTheirTrailersCarryTheLoadReport() {
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    track("PKG-3", new AtomicReference<>(), trailers);
    assertThat(trailers.get().get(GrpcSide.LOAD_METRICS)).as("no capacity, no report").isNull();

    replica.state().capacity(1, 30);
    long start = System.nanoTime();
    track("PKG-4", new AtomicReference<>(), trailers);
    assertThat((System.nanoTime() - start) / 1_000_000).as("held 30 ms").isGreaterThanOrEqualTo(29);
    assertThat(trailers.get().get(GrpcSide.LOAD_METRICS))
        .matches(CapacityHttpTest.ORCA_TEXT)
        .isNotEqualTo(
            "TEXT application_utilization=0.0000, cpu_utilization=0.0000, rps_fractional=0.0,"
                + " named_metrics.in_flight=0");

    var health =
        HealthGrpc.newBlockingStub(channel)
            .withInterceptors(
                MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailers))
            .withDeadlineAfter(5, TimeUnit.SECONDS);
    trailers.set(null);
    health.check(HealthCheckRequest.getDefaultInstance());
    assertThat(trailers.get().get(GrpcSide.LOAD_METRICS))
        .as("health checks carry it too: the operator's gRPC probe reads it")
        .matches(CapacityHttpTest.ORCA_TEXT);
  }

  @Test
  void withoutAGrpcPortThereIsNoGrpcSide() {
    try (SampleReplica plain = SampleReplica.start(SampleReplica.Options.of("k2"))) {
      assertThat(plain.grpcPort()).isEqualTo(-1);
      assertThat(plain.grpcAddress()).isNull();
    }
  }
}
