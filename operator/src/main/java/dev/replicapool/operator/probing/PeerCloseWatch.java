package dev.replicapool.operator.probing;

import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the {@link Prober} when a member closes a kept-alive probe connection that it had no reason
 * to close. A process that dies has its sockets closed by the kernel, so this is usually a crash,
 * seen long before the next probe is due.
 *
 * <p>Closes that are expected trigger nothing: the member answered {@code Connection: close} (or
 * HTTP/1.0 without keep-alive), the prober itself reset a timed-out probe or stopped probing, or
 * the connection was idle for about the client's own idle timeout. A member that closes connections
 * by design anyway (a short server idle timeout, say) would be probed twice as often; after {@value
 * #FALSE_ALARMS_BEFORE_BY_DESIGN} closes in a row whose probe passed, its closes are ignored.
 *
 * <p>Event-loop confined, like the prober's targets.
 */
final class PeerCloseWatch {
  private static final Logger LOG = LoggerFactory.getLogger(PeerCloseWatch.class);

  static final int FALSE_ALARMS_BEFORE_BY_DESIGN = 3;

  /**
   * Members probed at once when one connection closes. Members of several pools share a connection
   * when they share an address; probing them all at once over the one new connection would queue
   * them into their timeouts, and the first few tell as much about the process behind it.
   */
  static final int MAX_TOLD_PER_CLOSE = 4;

  /** A connection may carry the probes of several pools' members with the same address. */
  private final Map<HttpConnection, List<Watcher>> watchers = new IdentityHashMap<>();

  /** Connections about to be closed by this side or announced to close: a close means nothing. */
  private final Set<HttpConnection> expected = Collections.newSetFromMap(new IdentityHashMap<>());

  private record Watcher(Member member, Runnable onClose) {}

  /**
   * The prober is about to close {@code connection} itself (a reset), or the member announced it
   * will: every member probed over it ignores the close. A connection is shared by the members of
   * several pools with the same address, so this is per connection, not per member.
   */
  void expectClose(HttpConnection connection) {
    if (connection != null && watchers.containsKey(connection)) {
      expected.add(connection);
    }
  }

  /** Calls {@code onClose} once when {@code connection} closes, unless the member moved on. */
  void watch(Member member, HttpConnection connection, Runnable onClose) {
    if (connection == null || member.watched == connection) {
      return;
    }
    member.watched = connection;
    List<Watcher> list = watchers.get(connection);
    if (list == null) {
      list = new ArrayList<>(1);
      watchers.put(connection, list);
      connection.closeHandler(v -> closed(connection));
    }
    list.add(new Watcher(member, onClose));
  }

  private void closed(HttpConnection connection) {
    List<Watcher> list = watchers.remove(connection);
    boolean wasExpected = expected.remove(connection);
    if (list == null) {
      return;
    }
    int told = 0;
    for (Watcher w : list) {
      if (w.member().watched == connection) {
        w.member().watched = null;
        if (!wasExpected && told++ < MAX_TOLD_PER_CLOSE) {
          w.onClose().run();
        }
      }
    }
  }

  /** What the watch knows of one probed member. */
  static final class Member {
    private HttpConnection watched;
    private long lastAnswerMillis;
    private int falseAlarms;
    private boolean closesByDesign;

    /** A response arrived. */
    void answered(long nowMillis) {
      lastAnswerMillis = nowMillis;
    }

    /** Whether an unannounced close that just happened deserves a probe now. */
    boolean worthAProbe(long nowMillis, long idleTimeoutMillis) {
      if (closesByDesign) {
        return false;
      }
      // The client's own idle timeout, give or take its timer's resolution.
      return nowMillis - lastAnswerMillis < idleTimeoutMillis - 1_000;
    }

    /** The outcome of a probe a close triggered: a pass was a false alarm. */
    void earlyProbeResult(boolean ok, MemberKey key) {
      if (!ok) {
        falseAlarms = 0;
      } else if (++falseAlarms >= FALSE_ALARMS_BEFORE_BY_DESIGN && !closesByDesign) {
        closesByDesign = true;
        LOG.info(
            "{} closed {} probe connections in a row and kept answering: it closes them by"
                + " design, its closes no longer trigger a probe",
            key,
            falseAlarms);
      }
    }

    boolean closesByDesign() {
      return closesByDesign;
    }
  }

  /** A response arrived on {@code connection}; it may announce that the member closes it. */
  void answered(Member member, HttpConnection connection, HttpClientResponse response, long now) {
    member.answered(now);
    if (closesAfter(response)) {
      expectClose(connection);
    }
  }

  /** {@code Connection: close}, or HTTP/1.0 without keep-alive. */
  static boolean closesAfter(HttpClientResponse response) {
    String c = response.getHeader("Connection");
    String v = c == null ? "" : c.toLowerCase(Locale.ROOT);
    return v.contains("close")
        || (response.version() == HttpVersion.HTTP_1_0 && !v.contains("keep-alive"));
  }
}
