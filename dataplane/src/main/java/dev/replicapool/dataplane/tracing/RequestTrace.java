package dev.replicapool.dataplane.tracing;

import dev.replicapool.dataplane.proxy.ObserverChain;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import io.opentelemetry.api.trace.Span;
import java.util.ArrayList;
import java.util.function.LongSupplier;

/**
 * One request as a trace participant: its SERVER span, a CLIENT span per try (retries and hedges
 * included), and the traceparent each try sends, whose parent-id is that try's span. It is the
 * request's {@link ProxyObserver}, in front of the access log and the metrics, so it hears of a
 * try's end ({@code attempt}) and of the request's ({@code response}) where both paths already
 * report them; the paths themselves only ask it for a try's traceparent when the try's head goes
 * out. Made only when tracing is on. Event loop only.
 */
public final class RequestTrace extends ObserverChain {
  private final Tracing tracing;
  private final LongSupplier clock;

  /** Epoch nanoseconds minus the forwarding clock's: the clock's instants as span timestamps. */
  private final long epochOffset;

  private final Span server;
  private final String method;
  private final String scheme;
  private final String path;

  /** The tries whose span is open, oldest first. */
  private final ArrayList<OpenTry> open = new ArrayList<>(2);

  private int sent;
  private boolean ended;

  private static final class OpenTry {
    final Endpoint member;
    final int index;
    final Span span;
    int status;

    OpenTry(Endpoint member, int index, Span span) {
      this.member = member;
      this.index = index;
      this.span = span;
    }
  }

  /**
   * What the client sent that the trace needs.
   *
   * @param traceparent its traceparent header, null when none
   * @param tracestate its tracestate header, null when none
   * @param scheme "http" or "https", as the client reached the data plane
   */
  public record Incoming(
      CharSequence traceparent,
      CharSequence tracestate,
      String method,
      String scheme,
      String path,
      String host) {}

  /**
   * The trace of a request that began at {@code startNanos} (the forwarding clock), continuing the
   * client's traceparent when it is valid, else a new trace.
   */
  public RequestTrace(
      Tracing tracing, ProxyObserver next, LongSupplier clock, long startNanos, Incoming in) {
    super(next);
    this.tracing = tracing;
    this.clock = clock;
    this.epochOffset = tracing.now() - clock.getAsLong();
    this.method = in.method();
    this.scheme = in.scheme();
    this.path = in.path() == null ? "" : in.path();
    TraceParent parent = TraceParent.parse(in.traceparent());
    this.server =
        tracing.server(
            parent,
            parent == null || in.tracestate() == null ? null : in.tracestate().toString(),
            method,
            scheme,
            path,
            in.host(),
            startNanos + epochOffset);
  }

  /** The trace id, as the access log shows it. */
  public String traceId() {
    return server.getSpanContext().getTraceId();
  }

  /**
   * A try's head goes to {@code member} now, the try having begun at {@code sentAtNanos}: its span
   * starts, and this is the traceparent it carries.
   */
  public String traceparentFor(Endpoint member, long sentAtNanos) {
    OpenTry t = new OpenTry(member, sent++, null);
    Span span = tracing.startTry(server, attributes(t, null, 0), sentAtNanos + epochOffset);
    open.add(new OpenTry(member, t.index, span));
    return Tracing.traceparent(span);
  }

  /** The tracestate a try carries: the client's, unchanged; null when it sent none. */
  public String tracestate() {
    return Tracing.tracestate(server);
  }

  @Override
  public void answered(Endpoint member, int status) {
    OpenTry t = openOf(member);
    if (t != null) {
      t.status = status;
    }
    super.answered(member, status);
  }

  @Override
  public void attempt(String pool, Endpoint member, String outcome, long nanos) {
    OpenTry t = openOf(member);
    if (t != null) {
      open.remove(t);
      Tracing.endTry(t.span, attributes(t, outcome, t.status), epochNow());
    } else if (!ended) {
      // It ended before its head went out (no connection): a span for the time it took.
      OpenTry never = new OpenTry(member, sent++, null);
      TryAttributes.Try a = attributes(never, outcome, 0);
      long end = epochNow();
      Tracing.endTry(tracing.startTry(server, a, end - nanos), a, end);
    }
    super.attempt(pool, member, outcome, nanos);
  }

  @Override
  public void response(String pool, int status, long nanos) {
    if (!ended) {
      ended = true;
      long end = epochNow();
      for (OpenTry t : open) { // still out when the request ended: it is not waited for
        Tracing.endTry(t.span, attributes(t, "cancelled", t.status), end);
      }
      open.clear();
      Tracing.endServer(server, status, end);
    }
    super.response(pool, status, nanos);
  }

  /** The forwarding clock's now as a span timestamp. */
  private long epochNow() {
    return clock.getAsLong() + epochOffset;
  }

  private OpenTry openOf(Endpoint member) {
    for (OpenTry t : open) {
      if (t.member == member) {
        return t;
      }
    }
    return null;
  }

  private TryAttributes.Try attributes(OpenTry t, String outcome, int status) {
    return new TryAttributes.Try(
        method, scheme, path, t.member.host(), t.member.port(), t.index, outcome, status);
  }
}
