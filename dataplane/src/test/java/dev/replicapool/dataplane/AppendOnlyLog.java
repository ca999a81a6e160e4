package dev.replicapool.dataplane;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a test member records of each request, appended from its event loops and read by the tests:
 * an append costs O(1) and a reader iterates over a snapshot. (A CopyOnWriteArrayList copied itself
 * at each append: for a member answering thousands of requests, most of the test JVM's garbage, and
 * its collections showed in the latencies the flood tests measure.)
 */
final class AppendOnlyLog<T> extends AbstractList<T> {
  private final List<T> items = new ArrayList<>();

  @Override
  public synchronized boolean add(T item) {
    return items.add(item);
  }

  @Override
  public synchronized T get(int index) {
    return items.get(index);
  }

  @Override
  public synchronized int size() {
    return items.size();
  }

  @Override
  public Iterator<T> iterator() {
    return snapshot().iterator();
  }

  @Override
  public Stream<T> stream() {
    return snapshot().stream();
  }

  private synchronized List<T> snapshot() {
    return new ArrayList<>(items);
  }
}
