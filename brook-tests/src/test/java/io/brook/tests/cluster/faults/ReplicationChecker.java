package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.faults.AckedLog.Ack;
import io.brook.tests.cluster.faults.AckedLog.Failure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The checks after the faults have healed and the producers stopped: a fresh consumer reads every
 * partition from the beginning to the high watermark, and
 *
 * <ul>
 *   <li>every acknowledged record is there, exactly once, at the offset it was acknowledged with
 *       (no loss; no duplicate, so idempotence held across every failover);
 *   <li>within a partition each producer's records are in its send order;
 *   <li>nothing is there that no producer sent;
 *   <li>no send failed (the delivery timeout outlasts every fault);
 *   <li>every offset the {@link OffsetWatcher} read during the faults holds the same record now,
 *       and it never saw one offset hold two records.
 * </ul>
 *
 * All violations are collected and reported together, the first ones in full.
 */
final class ReplicationChecker {
  private static final int REPORTED = 40;

  /** One record as the final read found it. */
  record Stored(int partition, long offset, String id) {}

  /** What a successful check found, for printing. */
  record Summary(int acked, int read, int unacknowledgedPresent, Map<Integer, Long> endOffsets) {}

  private ReplicationChecker() {}

  static Summary check(
      String bootstrap, String topic, int partitions, AckedLog log, OffsetWatcher watcher) {
    Map<Integer, List<Stored>> read = readAll(bootstrap, topic, partitions);
    List<String> violations = violations(read, log, watcher.seen(), watcher.violations());
    int total = read.values().stream().mapToInt(List::size).sum();
    int acked = log.acks().size();
    Map<Integer, Long> endOffsets = new TreeMap<>();
    read.forEach(
        (p, records) ->
            endOffsets.put(
                p, records.isEmpty() ? 0 : records.get(records.size() - 1).offset() + 1));
    if (!violations.isEmpty()) {
      StringBuilder report = new StringBuilder();
      report
          .append(violations.size())
          .append(" violations in ")
          .append(topic)
          .append(" (")
          .append(acked)
          .append(" acknowledged, ")
          .append(total)
          .append(" read, end offsets ")
          .append(endOffsets)
          .append("):");
      violations.stream().limit(REPORTED).forEach(v -> report.append("\n  ").append(v));
      if (violations.size() > REPORTED) {
        report.append("\n  ... and ").append(violations.size() - REPORTED).append(" more");
      }
      System.out.println(report);
      throw new AssertionError(report.toString());
    }
    return new Summary(acked, total, total - acked, endOffsets);
  }

  /**
   * Every violation of the invariants, given what the final read found ({@code partition -> records
   * in offset order}), what the producers sent and had acknowledged, what the watcher read during
   * the faults ({@code partition/offset -> id}) and what it found itself.
   */
  static List<String> violations(
      Map<Integer, List<Stored>> read,
      AckedLog log,
      Map<String, String> watched,
      List<String> watcherViolations) {
    List<String> violations = new ArrayList<>();
    for (Failure failure : log.failures()) {
      violations.add(
          "send of "
              + failure.id()
              + " to partition "
              + failure.partition()
              + " failed: "
              + failure.error());
    }

    Map<String, String> position = new HashMap<>();
    Map<String, String> atOffset = new HashMap<>();
    for (Map.Entry<Integer, List<Stored>> partition : new TreeMap<>(read).entrySet()) {
      int p = partition.getKey();
      Map<Long, Long> lastSeqOfProducer = new HashMap<>();
      for (Stored r : partition.getValue()) {
        String at = p + "/" + r.offset();
        String id = r.id();
        atOffset.put(at, id);
        String earlier = position.putIfAbsent(id, at);
        if (earlier != null) {
          violations.add("duplicate: " + id + " at " + earlier + " and at " + at);
        }
        long[] parsed = AckedLog.parse(id);
        if (parsed == null || !log.wasSent(id)) {
          violations.add("unknown record at " + at + ": " + id);
          continue;
        }
        Long last = lastSeqOfProducer.put(parsed[0], parsed[1]);
        if (last != null && last >= parsed[1]) {
          violations.add(
              "out of send order in partition "
                  + p
                  + ": "
                  + id
                  + " at "
                  + at
                  + " after p"
                  + parsed[0]
                  + "-"
                  + last);
        }
      }
    }

    for (Ack ack : log.acks()) {
      String expected = ack.partition() + "/" + ack.offset();
      String found = position.get(ack.id());
      if (found == null) {
        violations.add(
            "lost: "
                + ack.id()
                + " acknowledged at "
                + expected
                + ", now there: "
                + atOffset.get(expected));
      } else if (!found.equals(expected)) {
        violations.add(
            "moved: " + ack.id() + " acknowledged at " + expected + ", found at " + found);
      }
    }

    violations.addAll(watcherViolations);
    for (Map.Entry<String, String> seen : new TreeMap<>(watched).entrySet()) {
      String now = atOffset.get(seen.getKey());
      if (!seen.getValue().equals(now)) {
        violations.add(
            "replaced: offset "
                + seen.getKey()
                + " was read as "
                + seen.getValue()
                + " during the faults, now holds "
                + now);
      }
    }
    return violations;
  }

  /** Every record of every partition up to the high watermark, read by a fresh consumer. */
  private static Map<Integer, List<Stored>> readAll(
      String bootstrap, String topic, int partitions) {
    Map<Integer, List<Stored>> read = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      read.put(p, new ArrayList<>());
    }
    for (ConsumerRecord<String, String> r :
        TopicReader.readAll(OffsetWatcher.config(bootstrap), topic, partitions)) {
      read.get(r.partition()).add(new Stored(r.partition(), r.offset(), r.value()));
    }
    return read;
  }
}
