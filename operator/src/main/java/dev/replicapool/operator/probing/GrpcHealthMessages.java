package dev.replicapool.operator.probing;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * The two messages of grpc.health.v1 (HealthCheckRequest {string service = 1;}, HealthCheckResponse
 * {ServingStatus status = 1;}) in protobuf's wire format, and gRPC's length-prefixed framing.
 * Written out, not generated: two one-field messages do not justify a protobuf runtime in the
 * operator. Tests check them against grpc-java's own server.
 */
final class GrpcHealthMessages {
  /** HealthCheckResponse.ServingStatus numbers. */
  static final int UNKNOWN = 0;

  static final int SERVING = 1;
  static final int NOT_SERVING = 2;
  static final int SERVICE_UNKNOWN = 3;

  private GrpcHealthMessages() {}

  /** A framed, uncompressed HealthCheckRequest. */
  static Buffer request(String service) {
    byte[] name = service == null ? new byte[0] : service.getBytes(StandardCharsets.UTF_8);
    Buffer message = Buffer.buffer();
    if (name.length > 0) {
      message.appendByte((byte) 0x0a); // field 1, length-delimited
      appendVarint(message, name.length);
      message.appendBytes(name);
    }
    return Buffer.buffer().appendByte((byte) 0).appendInt(message.length()).appendBuffer(message);
  }

  /**
   * The status of the first framed HealthCheckResponse in {@code body}.
   *
   * @throws IllegalArgumentException when the body is not one uncompressed, well-formed message
   */
  static int servingStatus(Buffer body) {
    if (body.length() < 5) {
      throw new IllegalArgumentException("no gRPC message in the response");
    }
    if (body.getByte(0) != 0) {
      throw new IllegalArgumentException("compressed gRPC message (none was accepted)");
    }
    int length = body.getInt(1);
    if (length < 0 || 5 + length > body.length()) {
      throw new IllegalArgumentException("truncated gRPC message");
    }
    int status = UNKNOWN;
    int[] pos = {5};
    int end = 5 + length;
    while (pos[0] < end) {
      long tag = readVarint(body, pos, end);
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      switch (wire) {
        case 0 -> {
          long v = readVarint(body, pos, end);
          if (field == 1) {
            status = (int) v;
          }
        }
        case 1 -> pos[0] += 8;
        case 2 -> {
          // Read the length first: "pos[0] += read(pos)" would add to the value before the read.
          long n = readVarint(body, pos, end);
          pos[0] += (int) n;
        }
        case 5 -> pos[0] += 4;
        default -> throw new IllegalArgumentException("bad protobuf wire type " + wire);
      }
    }
    if (pos[0] != end) {
      throw new IllegalArgumentException("truncated HealthCheckResponse");
    }
    return status;
  }

  static String name(int status) {
    return switch (status) {
      case UNKNOWN -> "UNKNOWN";
      case SERVING -> "SERVING";
      case NOT_SERVING -> "NOT_SERVING";
      case SERVICE_UNKNOWN -> "SERVICE_UNKNOWN";
      default -> "status " + status;
    };
  }

  private static void appendVarint(Buffer b, int value) {
    while ((value & ~0x7f) != 0) {
      b.appendByte((byte) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    b.appendByte((byte) value);
  }

  private static long readVarint(Buffer b, int[] pos, int end) {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= end) {
        throw new IllegalArgumentException("truncated varint");
      }
      byte x = b.getByte(pos[0]++);
      result |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalArgumentException("varint too long");
  }
}
