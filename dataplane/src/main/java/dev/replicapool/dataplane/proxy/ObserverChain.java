package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.routing.Endpoint;

/**
 * An observer in front of another, for a request that is logged or traced: every event goes on to
 * {@code next} (in the end the data plane's metrics); a link overrides only the events it notes,
 * and calls the same method here to pass them on.
 */
public abstract class ObserverChain implements ProxyObserver {
  private final ProxyObserver next;

  protected ObserverChain(ProxyObserver next) {
    this.next = next;
  }

  @Override
  public void attempt(String pool, Endpoint member, String outcome, long nanos) {
    next.attempt(pool, member, outcome, nanos);
  }

  @Override
  public void answered(Endpoint member, int status) {
    next.answered(member, status);
  }

  @Override
  public void retry(String pool, String reason) {
    next.retry(pool, reason);
  }

  @Override
  public void response(String pool, int status, long nanos) {
    next.response(pool, status, nanos);
  }

  @Override
  public void hedge(String pool, String outcome) {
    next.hedge(pool, outcome);
  }

  @Override
  public void budgetExhausted(String pool) {
    next.budgetExhausted(pool);
  }

  @Override
  public void queue(String pool, String outcome) {
    next.queue(pool, outcome);
  }

  @Override
  public void clientProtocolError(String protocol, String error) {
    next.clientProtocolError(protocol, error);
  }

  @Override
  public void clientStalled(String pool, String protocol, String side) {
    next.clientStalled(pool, protocol, side);
  }
}
