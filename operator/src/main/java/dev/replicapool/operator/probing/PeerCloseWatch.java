package dev.replicapool.operator.probing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which closes of kept-alive probe connections deserve a probe at once. A process that dies
 * has its sockets closed by the kernel, so a close the member did not announce is usually a crash,
 * seen long before the next probe is due.
 *
 * <p>Closes that are expected trigger nothing: the member announced it (an answer with {@code
 * Connection: close}, an HTTP/2 GOAWAY), the prober closes the connection itself (the reset of a
 * timed-out probe, an untracked member, shutdown), or the connection was idle for about the
 * client's own idle timeout. A member that closes connections by design anyway (a short server idle
 * timeout, an HTTP/1.0 server) would be probed twice as often; after {@value
 * #FALSE_ALARMS_BEFORE_BY_DESIGN} close-triggered probes in a row that passed, its closes are
 * ignored.
 *
 * <p>Connections are compared by identity and are opaque here (the prober passes Vert.x's); no I/O,
 * one thread (the prober's event loop), time from the injected clock.
 */
final class PeerCloseWatch {
  private static final Logger LOG = LoggerFactory.getLogger(PeerCloseWatch.class);

  static final int FALSE_ALARMS_BEFORE_BY_DESIGN = 3;

  /**
   * Members probed at once when one connection closes. Members of several pools share a connection
   * when they share an address; probing them all over the one new connection would queue them into
   * their timeouts, and the first few tell as much about the process behind it.
   */
  static final int MAX_TOLD_PER_CLOSE = 4;

  /** The client closes an idle connection about then, give or take its timer's resolution. */
  private static final long IDLE_CLOSE_MARGIN_MILLIS = 1_000;

  private final LongSupplier clock;
  private final long idleTimeoutMillis;
  private final Map<Object, List<Watcher>> watchers = new IdentityHashMap<>();
  private final Set<Object> expected = Collections.newSetFromMap(new IdentityHashMap<>());

  private record Watcher(Member member, Runnable onClose) {}

  /**
   * @param clock milliseconds, any origin
   * @param idleTimeoutMillis after this long without a request the client closes a connection
   */
  PeerCloseWatch(LongSupplier clock, long idleTimeoutMillis) {
    this.clock = clock;
    this.idleTimeoutMillis = idleTimeoutMillis;
  }

  /** What the watch knows of one probed member. */
  static final class Member {
    private final MemberKey key;
    private Object watched;
    private long lastActivityMillis; // a new connection, an answer: the client's idle clock
    private int falseAlarms;
    private boolean closesByDesign;
    private boolean gone;

    Member(MemberKey key) {
      this.key = key;
    }

    boolean closesByDesign() {
      return closesByDesign;
    }
  }

  /**
   * The member's check runs on {@code connection}; {@code onClose} runs once when that connection
   * closes unexpectedly, unless the member has moved on to another connection by then.
   *
   * @return whether the connection is new to the watch: the caller then reports its close (and its
   *     announcements) with {@link #closed} and {@link #expectClose}
   */
  boolean watch(Member member, Object connection, Runnable onClose) {
    if (member.gone || member.watched == connection) {
      return false;
    }
    member.watched = connection;
    member.lastActivityMillis = clock.getAsLong();
    List<Watcher> list = watchers.get(connection);
    boolean fresh = list == null;
    if (fresh) {
      list = new ArrayList<>(1);
      watchers.put(connection, list);
    }
    list.add(new Watcher(member, onClose));
    return fresh;
  }

  /**
   * A response arrived on {@code connection}.
   *
   * @param announcesClose the response said the member closes the connection after it
   */
  void answered(Member member, Object connection, boolean announcesClose) {
    member.lastActivityMillis = clock.getAsLong();
    if (announcesClose) {
      expectClose(connection);
    }
  }

  /**
   * The prober is about to close {@code connection} itself, or the member announced it will: no
   * member probed over it reacts to its close. Per connection, not per member: the members of
   * several pools with the same address share one.
   */
  void expectClose(Object connection) {
    if (watchers.containsKey(connection)) {
      expected.add(connection);
    }
  }

  /** The member is no longer probed (untracked, retuned, shutdown): its closes mean nothing. */
  void forget(Member member) {
    member.gone = true;
    member.watched = null;
  }

  /** {@code connection} closed: tells the members on it whose close deserves a probe. */
  void closed(Object connection) {
    List<Watcher> list = watchers.remove(connection);
    boolean wasExpected = expected.remove(connection);
    if (list == null) {
      return;
    }
    long now = clock.getAsLong();
    int told = 0;
    for (Watcher w : list) {
      Member m = w.member();
      if (m.watched != connection) {
        continue;
      }
      m.watched = null;
      if (!wasExpected && told < MAX_TOLD_PER_CLOSE && worthAProbe(m, now)) {
        told++;
        w.onClose().run();
      }
    }
  }

  private boolean worthAProbe(Member m, long now) {
    return !m.closesByDesign
        && now - m.lastActivityMillis < idleTimeoutMillis - IDLE_CLOSE_MARGIN_MILLIS;
  }

  /** The outcome of a probe a close triggered: a pass was a false alarm. */
  void closeTriggeredProbeResult(Member m, boolean ok) {
    if (!ok) {
      m.falseAlarms = 0;
    } else if (++m.falseAlarms >= FALSE_ALARMS_BEFORE_BY_DESIGN && !m.closesByDesign) {
      m.closesByDesign = true;
      LOG.info(
          "{} closed {} probe connections in a row and kept answering: it closes them by design,"
              + " its closes no longer trigger a probe",
          m.key,
          m.falseAlarms);
    }
  }

  /** Connections watched now; for tests. */
  int watchedConnections() {
    return watchers.size();
  }
}
