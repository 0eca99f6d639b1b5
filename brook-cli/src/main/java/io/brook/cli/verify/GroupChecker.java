package io.brook.cli.verify;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The checks of a consumer group whose members come and go (the fault campaign's groups workload,
 * {@code brook verify groups}), fed as things happen:
 *
 * <ul>
 *   <li>the committed offset of a partition never goes back: no acknowledged commit is below an
 *       earlier acknowledged one, no read of the committed offsets is below an earlier read, and no
 *       read is below a commit acknowledged before the read was sent (a read answered before a
 *       commit it raced with is not a regression, so reads are placed by when they were sent);
 *   <li>no partition is owned by two members in one generation (each member notes after every poll
 *       its generation and the partitions it holds).
 * </ul>
 *
 * Thread-safe: the members and the watcher report from their own threads.
 */
public final class GroupChecker {
  private final String topic;

  /** {@code generation/partition -> member} of every ownership a member noted. */
  private final Map<String, String> owners = new ConcurrentHashMap<>();

  /**
   * Per partition: {@link System#nanoTime()} after each acknowledged commit -> the highest offset
   * acknowledged up to then.
   */
  private final Map<Integer, NavigableMap<Long, Long>> acknowledged = new HashMap<>();

  /** Per partition: the highest offset a read of the committed offsets returned. */
  private final Map<Integer, Long> highestRead = new HashMap<>();

  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

  public GroupChecker(String topic) {
    this.topic = topic;
  }

  /**
   * Notes that a commit of {@code offset} for {@code partition} was acknowledged just now (or that
   * it was the committed offset before the workload), by {@code source}.
   */
  public synchronized void committed(int partition, long offset, String source) {
    NavigableMap<Long, Long> acks = acknowledged.computeIfAbsent(partition, p -> new TreeMap<>());
    Map.Entry<Long, Long> last = acks.lastEntry();
    long before = last == null ? -1 : last.getValue();
    if (offset < before) {
      wentBack(partition, offset, before, source);
    }
    acks.merge(System.nanoTime(), Math.max(before, offset), Math::max);
  }

  /**
   * Notes that a read of the group's committed offsets sent at {@code sentNanos} ({@link
   * System#nanoTime()}) returned {@code offset} for {@code partition}.
   */
  public synchronized void read(int partition, long offset, long sentNanos, String source) {
    Long earlier = highestRead.get(partition);
    if (earlier != null && offset < earlier) {
      wentBack(partition, offset, earlier, source + ", after an earlier read");
    }
    highestRead.merge(partition, offset, Math::max);
    NavigableMap<Long, Long> acks = acknowledged.get(partition);
    Map.Entry<Long, Long> before = acks == null ? null : acks.floorEntry(sentNanos);
    if (before != null && offset < before.getValue()) {
      wentBack(
          partition,
          offset,
          before.getValue(),
          source + ", below a commit acknowledged before the read");
    }
  }

  private void wentBack(int partition, long offset, long before, String source) {
    violations.add(
        "committed offset of "
            + topic
            + "-"
            + partition
            + " went back to "
            + offset
            + " after "
            + before
            + " ("
            + source
            + ")");
  }

  /** Notes that {@code member} held {@code partition} in {@code generation}. */
  public void owned(int generation, int partition, String member) {
    String other = owners.putIfAbsent(generation + "/" + partition, member);
    if (other != null && !other.equals(member)) {
      violations.add(
          "partition "
              + partition
              + " owned by "
              + other
              + " and "
              + member
              + " in generation "
              + generation);
    }
  }

  /**
   * One turn of a member: polls, notes the generation and the partitions it holds, and commits
   * synchronously what the poll returned (noting the acknowledged commit). A failed poll or commit
   * (a rebalance, a coordinator moving) is left to the next turn: the next owner starts from the
   * last commit. Returns the records the poll returned.
   */
  public int pollAndCommit(Consumer<?, ?> member, String name) {
    ConsumerRecords<?, ?> records;
    try {
      records = member.poll(Duration.ofMillis(100));
    } catch (RuntimeException e) {
      return 0;
    }
    int generation = member.groupMetadata().generationId();
    String id = name + "(" + member.groupMetadata().memberId() + ")";
    if (generation > 0) {
      for (TopicPartition tp : member.assignment()) {
        owned(generation, tp.partition(), id);
      }
    }
    if (records.isEmpty()) {
      return 0;
    }
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    for (TopicPartition tp : records.partitions()) {
      var of = records.records(tp);
      ConsumerRecord<?, ?> last = of.get(of.size() - 1);
      // With the leader epoch of the last record, as kafka-clients' own commitSync() commits: the
      // next owner then fetches from this offset only once its metadata names a leader of that
      // epoch or later. Without it, a deposed leader cut off from the controller (it still names
      // itself leader and has fewer records) answers OFFSET_OUT_OF_RANGE and the next owner
      // resets to the log start, committing an offset far below this one.
      next.put(tp, new OffsetAndMetadata(last.offset() + 1, last.leaderEpoch(), ""));
    }
    try {
      member.commitSync(next, Duration.ofSeconds(10));
      next.forEach((tp, at) -> committed(tp.partition(), at.offset(), "committed by " + id));
    } catch (RuntimeException e) {
      // Left to the next turn (see above).
    }
    return records.count();
  }

  /** A violation found by the workload itself (a member's thread failing, ...). */
  public void violation(String description) {
    violations.add(description);
  }

  /** How many generation/partition ownerships were noted. */
  public int ownerships() {
    return owners.size();
  }

  /** The highest committed offset seen of each partition, acknowledged or read. */
  public synchronized Map<Integer, Long> highestCommitted() {
    Map<Integer, Long> highest = new TreeMap<>(highestRead);
    acknowledged.forEach((p, acks) -> highest.merge(p, acks.lastEntry().getValue(), Math::max));
    return highest;
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }
}
