package io.brook.tests.cluster.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the producers of a {@link ProducerWorkload} sent and what the cluster acknowledged: for each
 * record, its id ({@code p<producer>-<seq>}), the partition it went to, and, once acknowledged, the
 * offset the leader gave it and when the acknowledgement arrived. A producer's {@code seq} counts
 * its {@code send()} calls, so within one partition a producer's send order is increasing {@code
 * seq}. Thread-safe: producers' I/O threads add to it while the test reads it.
 */
final class AckedLog {
  /** One acknowledged record. {@code nanos} is {@link System#nanoTime()} at the callback. */
  record Ack(String id, int producer, long seq, int partition, long offset, long nanos) {}

  /** A send that failed for good (the producer gave up on it). */
  record Failure(String id, int partition, String error) {}

  /** The longest time a partition went without an acknowledged write. */
  record Gap(int partition, long millis, long fromNanos, long toNanos) {}

  private final Map<String, Integer> sent = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();

  static String id(int producer, long seq) {
    return "p" + producer + "-" + seq;
  }

  /** The producer and sequence number of a record id, or null if it is not one of ours. */
  static long[] parse(String id) {
    if (id == null || !id.startsWith("p")) {
      return null;
    }
    int dash = id.indexOf('-');
    try {
      return new long[] {
        Long.parseLong(id.substring(1, dash)), Long.parseLong(id.substring(dash + 1))
      };
    } catch (RuntimeException e) {
      return null;
    }
  }

  void sent(String id, int partition) {
    sent.put(id, partition);
  }

  void acked(int producer, long seq, int partition, long offset) {
    acks.add(new Ack(id(producer, seq), producer, seq, partition, offset, System.nanoTime()));
  }

  void failed(String id, int partition, Exception error) {
    failures.add(new Failure(id, partition, String.valueOf(error)));
  }

  boolean wasSent(String id) {
    return sent.containsKey(id);
  }

  int sentCount() {
    return sent.size();
  }

  List<Ack> acks() {
    return List.copyOf(acks);
  }

  List<Failure> failures() {
    return List.copyOf(failures);
  }

  /**
   * Whether every partition in {@code 0..partitions-1} had a write acknowledged after {@code
   * nanos}.
   */
  boolean everyPartitionAckedAfter(int partitions, long nanos) {
    boolean[] seen = new boolean[partitions];
    int count = 0;
    for (Ack ack : acks) {
      if (ack.nanos() - nanos > 0 && !seen[ack.partition()]) {
        seen[ack.partition()] = true;
        count++;
      }
    }
    return count == partitions;
  }

  /**
   * When ({@link System#nanoTime()}) the last of the partitions {@code 0..partitions-1} took its
   * first acknowledged write after {@code nanos}, or -1 if one has taken none yet.
   */
  long everyPartitionAckedAt(int partitions, long nanos) {
    long[] first = new long[partitions];
    boolean[] seen = new boolean[partitions];
    for (Ack ack : acks) {
      int p = ack.partition();
      if (ack.nanos() - nanos > 0 && (!seen[p] || ack.nanos() - first[p] < 0)) {
        seen[p] = true;
        first[p] = ack.nanos();
      }
    }
    long last = nanos;
    for (int p = 0; p < partitions; p++) {
      if (!seen[p]) {
        return -1;
      }
      if (first[p] - last > 0) {
        last = first[p];
      }
    }
    return last;
  }

  /**
   * The "unwritable window" of a fault between {@code fromNanos} and {@code toNanos}: over every
   * partition, the longest time between two consecutive acknowledgements (in arrival order) of
   * which the second came after {@code fromNanos} and the first before {@code toNanos}. Call it
   * once the workload has run on past {@code toNanos}, so that the write ending the window is in.
   */
  Gap longestGap(int partitions, long fromNanos, long toNanos) {
    Map<Integer, List<Long>> times = new TreeMap<>();
    for (Ack ack : acks) {
      times.computeIfAbsent(ack.partition(), p -> new ArrayList<>()).add(ack.nanos());
    }
    Gap longest = new Gap(-1, 0, fromNanos, fromNanos);
    for (int p = 0; p < partitions; p++) {
      List<Long> t = times.getOrDefault(p, List.of());
      t.sort(Comparator.naturalOrder());
      for (int i = 0; i + 1 < t.size(); i++) {
        long a = t.get(i);
        long b = t.get(i + 1);
        if (b - fromNanos > 0
            && toNanos - a > 0
            && b - a > longest.toNanos() - longest.fromNanos()) {
          longest = new Gap(p, (b - a) / 1_000_000, a, b);
        }
      }
      // No write since: the partition is still unwritable (counted up to toNanos).
      long last = t.isEmpty() ? fromNanos : t.get(t.size() - 1);
      if (toNanos - last > longest.toNanos() - longest.fromNanos()) {
        longest = new Gap(p, (toNanos - last) / 1_000_000, last, toNanos);
      }
    }
    return longest;
  }
}
