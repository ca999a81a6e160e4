package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

/** The hand-written wire format against grpc-java's generated messages. */
class GrpcHealthMessagesTest {
  @Test
  void requestIsWhatProtobufWrites() throws Exception {
    for (String service : new String[] {"", "tracking.v1.Tracking", "x".repeat(300)}) {
      Buffer framed = GrpcHealthMessages.request(service);
      assertThat(framed.getByte(0)).isZero();
      byte[] message = framed.getBytes(5, framed.length());
      assertThat(framed.getInt(1)).isEqualTo(message.length);
      assertThat(HealthCheckRequest.parseFrom(message).getService()).isEqualTo(service);
      assertThat(message)
          .isEqualTo(HealthCheckRequest.newBuilder().setService(service).build().toByteArray());
    }
  }

  @Test
  void responseStatusIsReadAsProtobufWritesIt() {
    for (ServingStatus s :
        new ServingStatus[] {
          ServingStatus.UNKNOWN,
          ServingStatus.SERVING,
          ServingStatus.NOT_SERVING,
          ServingStatus.SERVICE_UNKNOWN
        }) {
      byte[] message = HealthCheckResponse.newBuilder().setStatus(s).build().toByteArray();
      Buffer framed =
          Buffer.buffer().appendByte((byte) 0).appendInt(message.length).appendBytes(message);
      assertThat(GrpcHealthMessages.servingStatus(framed)).isEqualTo(s.getNumber());
    }
  }

  @Test
  void unknownFieldsAreSkipped() {
    // field 2 (varint 5), field 3 (bytes "ab"), then status = SERVING
    byte[] message = {0x10, 0x05, 0x1a, 0x02, 'a', 'b', 0x08, 0x01};
    Buffer framed =
        Buffer.buffer().appendByte((byte) 0).appendInt(message.length).appendBytes(message);
    assertThat(GrpcHealthMessages.servingStatus(framed)).isEqualTo(GrpcHealthMessages.SERVING);
  }

  @Test
  void brokenMessagesAreRefused() {
    assertThatThrownBy(() -> GrpcHealthMessages.servingStatus(Buffer.buffer()))
        .hasMessageContaining("no gRPC message");
    Buffer compressed = Buffer.buffer().appendByte((byte) 1).appendInt(0);
    assertThatThrownBy(() -> GrpcHealthMessages.servingStatus(compressed))
        .hasMessageContaining("compressed");
    Buffer truncated = Buffer.buffer().appendByte((byte) 0).appendInt(10).appendByte((byte) 8);
    assertThatThrownBy(() -> GrpcHealthMessages.servingStatus(truncated))
        .hasMessageContaining("truncated");
  }
}
