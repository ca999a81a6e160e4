package dev.replicapool.dataplane.accesslog;

import dev.replicapool.dataplane.proxy.ProxyObserver;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane's access log: whether a request is logged ({@link #begin}, null when not, so a
 * request that is not logged costs no allocation), and, once it ended ({@link #end}), its line
 * written by one writer thread through a bounded queue. A full queue drops the line and counts it
 * ({@link #dropped}): a request never waits for the log.
 *
 * <p>The data plane's flags choose the sink and format and whether every pool is logged; a pool's
 * {@code spec.accessLog} turns it on for that pool and sets its sampling and "errors only".
 */
public final class AccessLog implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(AccessLog.class);
  private static final int BATCH = 1024;
  private static final long GATHER_MILLIS = 5;

  /** Where lines go. Called on the writer thread only. */
  public interface Sink extends Closeable {
    void write(String line) throws IOException;

    void flush() throws IOException;
  }

  /**
   * @param format JSON lines or text
   * @param query whether paths keep their query string
   * @param allPools log every pool, whatever its spec says (its sampling and errorsOnly still
   *     apply)
   * @param queueSize lines waiting for the writer at most; more are dropped
   */
  public record Options(AccessLogFormat format, boolean query, boolean allPools, int queueSize) {}

  /** No access log: {@link #begin} always answers null. */
  public static final AccessLog OFF = new AccessLog();

  private final Options options;
  private final Sink sink;
  private final LongSupplier wallMillis;
  private final ArrayBlockingQueue<AccessRecord> queue;
  private final LongAdder dropped = new LongAdder();
  private final Thread writer;
  private volatile boolean closed;

  private AccessLog() {
    this.options = null;
    this.sink = null;
    this.wallMillis = null;
    this.queue = null;
    this.writer = null;
  }

  public AccessLog(Options options, Sink sink, LongSupplier wallMillis) {
    this.options = options;
    this.sink = sink;
    this.wallMillis = wallMillis;
    this.queue = new ArrayBlockingQueue<>(options.queueSize());
    this.writer = new Thread(this::writeLoop, "access-log-writer");
    writer.setDaemon(true);
    writer.start();
  }

  public boolean on() {
    return options != null;
  }

  /**
   * A record for a request of {@code pool} (null when no pool matched) that started at {@code
   * startNanos}, or null when it is not logged: the log is off, the pool's spec does not ask, or
   * sampling left it out. The record passes every event on to {@code next}.
   */
  public AccessRecord begin(
      String pool,
      dev.replicapool.api.v1alpha1.AccessLog spec,
      ProxyObserver next,
      long startNanos) {
    if (options == null) {
      return null;
    }
    boolean enabled = spec != null && Boolean.TRUE.equals(spec.enabled);
    if (!enabled && !options.allPools()) {
      return null;
    }
    double rate = spec == null || spec.sampleRate == null ? 1.0 : spec.sampleRate;
    if (rate < 1.0 && ThreadLocalRandom.current().nextDouble() >= rate) {
      return null;
    }
    boolean errorsOnly = spec != null && Boolean.TRUE.equals(spec.errorsOnly);
    return new AccessRecord(next, errorsOnly, wallMillis.getAsLong(), startNanos, pool);
  }

  /** The request of {@code r} ended with {@code status} at {@code nowNanos}: its line is queued. */
  public void end(AccessRecord r, int status, long nowNanos) {
    r.end(status, nowNanos);
    if (r.errorsOnly && !r.isError()) {
      return;
    }
    if (!queue.offer(r)) {
      dropped.increment();
    }
  }

  /** Lines dropped because the queue was full. */
  public long dropped() {
    return dropped.sum();
  }

  private void writeLoop() {
    List<AccessRecord> batch = new ArrayList<>(BATCH);
    while (!closed || !queue.isEmpty()) {
      try {
        AccessRecord first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        for (AccessRecord r : batch) {
          write(r);
        }
        batch.clear();
        sink.flush();
        if (!closed) {
          // Lines gather meanwhile: one write for many, and no wake-up of this thread (a futex
          // call on the event loop's side) per request. A line waits at most this long.
          Thread.sleep(GATHER_MILLIS);
        }
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        log.warn("access log: flushing failed: {}", e.toString());
      }
    }
  }

  private void write(AccessRecord r) {
    try {
      sink.write(options.format().line(r, options.query()));
    } catch (IOException | RuntimeException e) {
      log.warn("access log: a line could not be written: {}", e.toString());
    }
  }

  /** Writes what is queued (for up to a second), then closes the sink. */
  @Override
  public void close() {
    if (writer == null || closed) {
      return;
    }
    closed = true;
    try {
      writer.join(1000);
      if (writer.isAlive()) {
        writer.interrupt();
      }
      sink.flush();
      sink.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      log.warn("access log: closing failed: {}", e.toString());
    }
  }

  /** Lines to standard output. */
  public static Sink stdout() {
    return writerSink(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
  }

  /** Lines appended to {@code file}, created when missing. */
  public static Sink file(Path file) throws IOException {
    return writerSink(
        Files.newBufferedWriter(
            file,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND,
            StandardOpenOption.WRITE),
        true);
  }

  private static Sink writerSink(Writer w, boolean closeIt) {
    BufferedWriter out = w instanceof BufferedWriter b ? b : new BufferedWriter(w, 1 << 16);
    return new Sink() {
      @Override
      public void write(String line) throws IOException {
        out.write(line);
        out.write('\n');
      }

      @Override
      public void flush() throws IOException {
        out.flush();
      }

      @Override
      public void close() throws IOException {
        if (closeIt) {
          out.close();
        } else {
          out.flush();
        }
      }
    };
  }
}
