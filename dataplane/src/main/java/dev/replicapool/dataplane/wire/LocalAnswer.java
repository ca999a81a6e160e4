package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/** The proxy's own HTTP/1.1 answers: refusals, 404, 502, 503, 504, 508. */
public final class LocalAnswer {
  private LocalAnswer() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, int status, String message, String pool, boolean close) {
    byte[] body = (message + "\n").getBytes(StandardCharsets.UTF_8);
    StringBuilder h = new StringBuilder(160);
    h.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
    h.append("content-type: text/plain; charset=utf-8\r\n");
    if (pool != null) {
      h.append("x-replicapool-pool: ").append(pool).append("\r\n");
    }
    h.append("content-length: ").append(body.length).append("\r\n");
    if (close) {
      h.append("connection: close\r\n");
    }
    h.append("\r\n");
    byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
    ByteBuf out = alloc.buffer(head.length + body.length);
    return out.writeBytes(head).writeBytes(body);
  }

  /** 100 Continue, sent by the proxy itself when a request asks for it. */
  public static final byte[] CONTINUE = Ascii.bytes("HTTP/1.1 100 Continue\r\n\r\n");

  public static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 413 -> "Content Too Large";
      case 414 -> "URI Too Long";
      case 426 -> "Upgrade Required";
      case 431 -> "Request Header Fields Too Large";
      case 499 -> "Client Closed Request";
      case 501 -> "Not Implemented";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      case 505 -> "HTTP Version Not Supported";
      case 508 -> "Loop Detected";
      default -> "Error";
    };
  }
}
