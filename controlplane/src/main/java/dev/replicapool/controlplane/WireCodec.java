package dev.replicapool.controlplane;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.replicapool.api.wire.StreamMessage;

/**
 * JSON encoding of {@link StreamMessage} frames. Unknown fields are ignored so that either end can
 * add fields first; anything else that does not parse is a {@link MalformedFrameException}.
 */
public final class WireCodec {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
          .build();

  private WireCodec() {}

  public static String encode(StreamMessage message) {
    try {
      return MAPPER.writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot encode " + message.type() + " frame", e);
    }
  }

  public static StreamMessage decode(String text) {
    StreamMessage message;
    try {
      message = MAPPER.readValue(text, StreamMessage.class);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new MalformedFrameException("not a stream message: " + shortReason(e));
    }
    if (message == null || message.type() == null) {
      throw new MalformedFrameException("frame without a type");
    }
    return message;
  }

  private static String shortReason(Exception e) {
    String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    if (m == null) {
      return e.getClass().getSimpleName();
    }
    return m.length() > 200 ? m.substring(0, 200) + "..." : m;
  }

  /** A frame that is not a valid {@link StreamMessage}. */
  public static final class MalformedFrameException extends RuntimeException {
    public MalformedFrameException(String message) {
      super(message);
    }
  }
}
