package dev.replicapool.replica;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * gRPC messages that are plain strings in UTF-8, no protobuf: the replica's {@link GrpcSide#TRACK}
 * and the tests' gRPC echo members, so that any client with a byte marshaller calls them. A message
 * that cannot be read fails the call with INTERNAL.
 */
public enum Utf8Marshaller implements MethodDescriptor.Marshaller<String> {
  INSTANCE;

  @Override
  public InputStream stream(String value) {
    return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String parse(InputStream stream) {
    try {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException();
    }
  }
}
