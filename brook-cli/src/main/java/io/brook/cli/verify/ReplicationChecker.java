package io.brook.cli.verify;

import io.brook.cli.verify.AckedLog.Ack;
import io.brook.cli.verify.AckedLog.Failure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checks of acknowledged writes, once the producers have stopped and a fresh consumer has read
 * every partition up to its end offset (the fault campaign's producer workload, {@code brook verify
 * produce}):
 *
 * <ul>
 *   <li>every acknowledged record is there, exactly once, at the offset it was acknowledged with
 *       (no loss; no duplicate, so idempotence held across every failover);
 *   <li>within a partition each producer's records are in its send order;
 *   <li>nothing is there that no producer sent;
 *   <li>no send failed;
 *   <li>every offset a consumer read while the workload ran holds the same record now, and no
 *       consumer saw one offset hold two records.
 * </ul>
 *
 * All violations are collected and returned together.
 */
public final class ReplicationChecker {
  /** One record as the final read found it. */
  public record Stored(int partition, long offset, String id) {}

  private ReplicationChecker() {}

  /**
   * Every violation of the invariants, given what the final read found ({@code partition -> records
   * in offset order}), what the producers sent and had acknowledged, what the watcher read during
   * the faults ({@code partition/offset -> id}) and what it found itself.
   */
  public static List<String> violations(
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
}
