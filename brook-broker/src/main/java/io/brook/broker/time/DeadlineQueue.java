package io.brook.broker.time;

import java.util.Arrays;

/**
 * Entries ordered by deadline, earliest first, ties in the order they were added: a binary min-heap
 * in which every entry knows its slot, so adding, removing any entry and taking the first cost
 * O(log n), and a removed entry is unreachable from the queue at once. Deadlines are {@link
 * System#nanoTime()}-style values, compared by their difference (so they may wrap). The array
 * shrinks again when a burst of entries has gone. Not thread-safe: its owner locks.
 */
final class DeadlineQueue<E extends DeadlineQueue.Entry> {
  static final int INITIAL_CAPACITY = 64;

  /** What the queue orders. An entry is in at most one queue at a time. */
  static class Entry {
    // Written only by the queue (package-private for its generic code); read through the methods.
    long dueNanos;
    long sequence;
    int slot = -1;

    final long dueNanos() {
      return dueNanos;
    }

    /** Whether the entry is in a queue (added and neither removed nor polled since). */
    final boolean queued() {
      return slot >= 0;
    }
  }

  private Entry[] heap = new Entry[INITIAL_CAPACITY];
  private int size;
  private long added;

  /**
   * Queues {@code entry} for {@code dueNanos}, after every entry already queued for the same time.
   *
   * @throws IllegalStateException if the entry is queued already
   */
  void add(E entry, long dueNanos) {
    if (entry.queued()) {
      throw new IllegalStateException("already queued");
    }
    entry.dueNanos = dueNanos;
    entry.sequence = added++;
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    siftUp(size++, entry);
  }

  /** Removes {@code entry}; false if it was not queued (never added, polled or removed). */
  boolean remove(E entry) {
    int slot = entry.slot;
    if (slot < 0 || slot >= size || heap[slot] != entry) {
      return false;
    }
    removeAt(slot);
    return true;
  }

  /** The earliest entry, or null if the queue is empty. */
  @SuppressWarnings("unchecked")
  E peek() {
    return size == 0 ? null : (E) heap[0];
  }

  /** Removes and returns the earliest entry, or null if the queue is empty. */
  E poll() {
    E first = peek();
    if (first != null) {
      removeAt(0);
    }
    return first;
  }

  int size() {
    return size;
  }

  /** Empties the queue: every entry counts as removed. */
  void clear() {
    for (int i = 0; i < size; i++) {
      heap[i].slot = -1;
    }
    heap = new Entry[INITIAL_CAPACITY];
    size = 0;
  }

  /** Capacity of the array, for tests of its shrinking. */
  int capacity() {
    return heap.length;
  }

  private void removeAt(int slot) {
    heap[slot].slot = -1;
    int last = --size;
    Entry moved = heap[last];
    heap[last] = null;
    if (slot != last) {
      siftDown(slot, moved);
      if (heap[slot] == moved) {
        siftUp(slot, moved);
      }
    }
    if (heap.length > INITIAL_CAPACITY && size < heap.length / 4) {
      heap = Arrays.copyOf(heap, heap.length / 2);
    }
  }

  private void siftUp(int slot, Entry entry) {
    while (slot > 0) {
      int parentSlot = (slot - 1) >>> 1;
      Entry parent = heap[parentSlot];
      if (!before(entry, parent)) {
        break;
      }
      place(parent, slot);
      slot = parentSlot;
    }
    place(entry, slot);
  }

  private void siftDown(int slot, Entry entry) {
    int firstLeaf = size >>> 1;
    while (slot < firstLeaf) {
      int childSlot = 2 * slot + 1;
      Entry child = heap[childSlot];
      int rightSlot = childSlot + 1;
      if (rightSlot < size && before(heap[rightSlot], child)) {
        childSlot = rightSlot;
        child = heap[rightSlot];
      }
      if (!before(child, entry)) {
        break;
      }
      place(child, slot);
      slot = childSlot;
    }
    place(entry, slot);
  }

  private void place(Entry entry, int slot) {
    heap[slot] = entry;
    entry.slot = slot;
  }

  private static boolean before(Entry a, Entry b) {
    long difference = a.dueNanos - b.dueNanos;
    return difference != 0 ? difference < 0 : a.sequence < b.sequence;
  }
}
