package dev.replicapool.dataplane.training;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 at its cheapest, for the warm-up's load: a member that answers each request head with
 * the same few bytes, and a client connection that sends the same GET again as each answer ends.
 * Neither parses more than the end of a head, so the process's CPU goes to the data plane between
 * them, whose request path the warm-up is for (with Vert.x's own client and server on both sides,
 * they took most of it).
 */
final class RawHttp {
  static final String HOST = "raw.training";
  private static final Buffer ANSWER =
      Buffer.buffer("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-replica: training\r\n\r\nok");
  private static final byte[] HEAD_END = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ANSWER_END = "\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);

  private RawHttp() {}

  /** The member: one answer per request head (bodyless GETs only). */
  static NetServer member(Vertx vertx) {
    return vertx
        .createNetServer()
        .connectHandler(
            s -> {
              Matcher heads = new Matcher(HEAD_END);
              s.handler(
                  b -> {
                    for (int n = heads.count(b); n > 0; n--) {
                      s.write(ANSWER);
                    }
                  });
            });
  }

  /**
   * One client connection to the data plane's {@code port}: GETs one after another until {@code
   * untilNanos}; the answers counted, or the connection's failure. An answer that is not the
   * member's never counts, and the connection then fails a second after the time is up, so a broken
   * path holds the warm-up back no longer than that.
   */
  static Future<Integer> client(Vertx vertx, NetClient client, int port, long untilNanos) {
    Buffer get = Buffer.buffer("GET /training HTTP/1.1\r\nhost: " + HOST + "\r\n\r\n");
    Promise<Integer> done = Promise.promise();
    long late = TimeUnit.NANOSECONDS.toMillis(untilNanos - System.nanoTime()) + 1_000;
    vertx.setTimer(
        Math.max(1, late), t -> done.tryFail("a warm-up request had no answer of its member"));
    client
        .connect(port, "127.0.0.1")
        .onFailure(done::fail)
        .onSuccess(
            s -> {
              Matcher answers = new Matcher(ANSWER_END);
              int[] answered = {0};
              s.closeHandler(v -> done.tryFail("the data plane closed the warm-up's connection"));
              done.future().onFailure(e -> s.close());
              s.handler(
                  b -> {
                    int n = answers.count(b);
                    if (n == 0) {
                      return; // the answer's end is in a later read
                    }
                    answered[0] += n;
                    if (System.nanoTime() >= untilNanos) {
                      done.tryComplete(answered[0]);
                      s.close();
                    } else {
                      s.write(get); // one request in flight per connection
                    }
                  });
              s.write(get);
            });
    return done.future();
  }

  /** Counts the occurrences of a byte pattern in a stream read in pieces. */
  static final class Matcher {
    private final byte[] pattern;
    private int matched;

    Matcher(byte[] pattern) {
      this.pattern = pattern;
    }

    /** How many times the pattern ended in {@code b}. */
    int count(Buffer b) {
      int found = 0;
      for (int i = 0; i < b.length(); i++) {
        byte c = b.getByte(i);
        if (c == pattern[matched]) {
          matched++;
        } else {
          // Restart at the first byte: enough for these patterns, whose only repeated prefix is
          // one CR (a partial "\r\n\r" followed by "\r" is a new match's first byte).
          matched = c == pattern[0] ? 1 : 0;
        }
        if (matched == pattern.length) {
          found++;
          matched = 0;
        }
      }
      return found;
    }
  }
}
