package dev.replicapool.controlplane;

import dev.replicapool.api.wire.StreamMessage;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.WebSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frames a data plane received and has not answered yet: hands them to the {@link
 * SnapshotApplier} a batch at a time, in order, and answers each on the stream it came on. What
 * each frame's fate is, {@link FrameTriage} decides; what was applied, {@link AppliedVersions}
 * remembers. Everything runs on the client's one context.
 */
final class ApplyQueue {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneClient.class);

  /** At most this many answers in one {@code answers} frame (well inside the frame limit). */
  static final int MAX_ANSWERS_PER_FRAME = 1_000;

  /** A frame received and not yet handled, with the stream it came on (answers go back there). */
  private record Received(WebSocket socket, StreamMessage message) {}

  /** A received frame with its fate. */
  private record Step(Received frame, FrameTriage.Fate fate) {}

  private final Context context;
  private final SnapshotApplier applier;
  private final Supplier<WebSocket> currentStream;
  private final AppliedVersions applied = new AppliedVersions();
  private final FrameTriage triage = new FrameTriage(applied);
  private final ArrayDeque<Received> received = new ArrayDeque<>();
  private boolean draining;

  /**
   * @param currentStream the stream open now, or null: only its {@code synced} may remove pools
   */
  ApplyQueue(Context context, SnapshotApplier applier, Supplier<WebSocket> currentStream) {
    this.context = context;
    this.applier = applier;
    this.currentStream = currentStream;
  }

  /** A new stream opened: what the operator has is what this stream will name. */
  void streamOpened() {
    applied.streamOpened();
  }

  /** Queues a {@code snapshot}, {@code remove} or {@code synced} frame of {@code socket}. */
  void add(WebSocket socket, StreamMessage m) {
    if (socket == currentStream.get() && m.type() != StreamMessage.Type.synced) {
      String pool = poolOf(m);
      if (pool != null) {
        applied.heardOf(pool);
      }
    }
    received.add(new Received(socket, m));
    if (!draining) {
      // Not now: after this read's other frames have been delivered, so that frames that arrive
      // together are applied together (one table swap for a burst, see SnapshotApplier#applyAll).
      draining = true;
      context.runOnContext(v -> drain());
    }
  }

  /**
   * Hands the frames received so far to the applier as one batch and answers each; the next batch
   * starts when this one is answered.
   */
  private void drain() {
    List<Step> steps = nextBatch();
    if (steps == null) {
      return; // removals before a synced are under way; they drain on when done
    }
    if (steps.isEmpty()) {
      draining = false;
      return;
    }
    List<SnapshotApplier.Change> changes = new ArrayList<>();
    for (Step st : steps) {
      if (st.fate().change() != null) {
        changes.add(st.fate().change());
      }
    }
    List<Future<Void>> results = applyAll(changes);
    Future.join(results)
        .onComplete(
            done -> {
              answer(steps, results);
              // Through the context, not a direct call: a long queue must not deepen the stack.
              context.runOnContext(v -> drain());
            });
  }

  /**
   * Takes the next batch off the queue, passing on the {@code synced} frames at its head. A batch
   * ends before a {@code synced} frame (which vouches for the frames before it, so it waits for
   * them) and before a second frame for the same pool (which must see the first one's outcome).
   *
   * @return null when a complete {@code synced} started removals (they drain on when done)
   */
  private List<Step> nextBatch() {
    List<Step> steps = new ArrayList<>();
    Set<String> pools = new HashSet<>();
    while (!received.isEmpty()) {
      Received r = received.peek();
      if (r.message().type() == StreamMessage.Type.synced) {
        if (!steps.isEmpty()) {
          break;
        }
        received.poll();
        if (Boolean.TRUE.equals(r.message().complete())
            && forgetPoolsTheOperatorNoLongerHas(r.socket())) {
          return null; // the removals finish first, then synced, then the rest of the queue
        }
        applier.synced();
        continue;
      }
      String pool = poolOf(r.message());
      if (pool != null && !pools.add(pool)) {
        break;
      }
      received.poll();
      steps.add(new Step(r, triage.judge(r.message())));
    }
    return steps;
  }

  /** Sends each step's answer, one frame per stream for the whole batch. */
  private void answer(List<Step> steps, List<Future<Void>> results) {
    // One frame for the answers of a batch: a write (and a syscall) per answer costs about a fifth
    // of the data plane's time when 1,000 pools arrive at once (docs/BENCHMARKS.md, item 6).
    Map<WebSocket, List<StreamMessage>> bySocket = new LinkedHashMap<>();
    int next = 0;
    for (Step st : steps) {
      SnapshotApplier.Change change = st.fate().change();
      StreamMessage answer =
          change == null ? st.fate().answer() : answer(change, results.get(next++));
      if (answer != null) {
        bySocket.computeIfAbsent(st.frame().socket(), k -> new ArrayList<>()).add(answer);
      }
    }
    bySocket.forEach(ApplyQueue::send);
  }

  /**
   * Before {@code synced}, the operator has sent every pool it knows on this stream. A pool this
   * data plane still serves but did not hear of was deleted while the two were apart (operator
   * down, stream cut): nothing else would ever remove it, so it is removed here, then {@code
   * synced} is passed on.
   *
   * @return true when removals are under way (they call {@code synced} and drain on when done)
   */
  private boolean forgetPoolsTheOperatorNoLongerHas(WebSocket socket) {
    if (socket != currentStream.get()) {
      return false; // a stale stream's word on what exists does not count
    }
    List<SnapshotApplier.Change> removals = applied.removalsOfUnnamedPools();
    if (removals.isEmpty()) {
      return false;
    }
    List<Future<Void>> results = applyAll(removals);
    Future.join(results)
        .onComplete(
            done -> {
              for (int i = 0; i < removals.size(); i++) {
                String pool = removals.get(i).pool();
                if (results.get(i).succeeded()) {
                  applied.forget(pool);
                  log.info("removed pool {}: the operator no longer has it", pool);
                } else {
                  log.warn(
                      "could not remove pool {}, which the operator no longer has: {}",
                      pool,
                      reason(results.get(i).cause()));
                }
              }
              applier.synced();
              context.runOnContext(v -> drain());
            });
    return true;
  }

  private static void send(WebSocket socket, List<StreamMessage> answers) {
    if (socket.isClosed()) {
      return;
    }
    if (answers.size() == 1) {
      socket.writeTextMessage(WireCodec.encode(answers.get(0)));
      return;
    }
    for (int from = 0; from < answers.size(); from += MAX_ANSWERS_PER_FRAME) {
      List<StreamMessage> part =
          answers.subList(from, Math.min(answers.size(), from + MAX_ANSWERS_PER_FRAME));
      socket.writeTextMessage(WireCodec.encode(StreamMessage.answers(part)));
    }
  }

  /** The applier's outcome of each change; a failing or misbehaving applier fails them all. */
  private List<Future<Void>> applyAll(List<SnapshotApplier.Change> changes) {
    if (changes.isEmpty()) {
      return List.of();
    }
    List<Future<Void>> results;
    try {
      results = applier.applyAll(changes);
    } catch (RuntimeException e) {
      log.warn("applying {} frames failed", changes.size(), e);
      results = null;
    }
    if (results == null || results.size() != changes.size()) {
      Future<Void> failed = Future.failedFuture("data plane failed to apply the snapshots");
      return Collections.nCopies(changes.size(), failed);
    }
    List<Future<Void>> safe = new ArrayList<>(results.size());
    for (Future<Void> f : results) {
      safe.add(f == null ? Future.failedFuture("applier returned no result") : f);
    }
    return safe;
  }

  /** The ACK or NACK for a change the applier has finished with. */
  private StreamMessage answer(SnapshotApplier.Change change, Future<Void> result) {
    if (result.succeeded()) {
      applied.recordApplied(change);
      return StreamMessage.ack(change.pool(), change.version());
    }
    return StreamMessage.nack(change.pool(), change.version(), reason(result.cause()));
  }

  private static String poolOf(StreamMessage m) {
    if (m.type() == StreamMessage.Type.snapshot && m.snapshot() != null) {
      return m.snapshot().pool();
    }
    return m.pool();
  }

  private static String reason(Throwable t) {
    String msg = t.getMessage();
    return msg == null || msg.isBlank() ? t.getClass().getSimpleName() : msg;
  }
}
