package io.brook.coordinator.group.offsets;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Offsets committed inside transactions that have not ended yet (TxnOffsetCommit, KIP-98), per
 * producer id. They become committed offsets when the producer's COMMIT marker is replayed and
 * vanish with its ABORT marker; until then OffsetFetch with {@code require_stable} reports their
 * partitions as unstable (KIP-447). Replayed state only, on the shard's thread.
 */
public final class PendingTransactionalOffsets {
  /**
   * A pending offset and the log offset of its record: on COMMIT it replaces the committed offset
   * only if written after it, so a plain commit made during the transaction is not undone.
   */
  record Pending(CommittedOffset offset, long recordOffset) {}

  private final Map<Long, Map<String, Map<TopicPartition, Pending>>> byProducer = new HashMap<>();

  /**
   * The producers with a pending offset, per group and partition: answers "is this partition
   * unstable" and finds what a tombstone deletes without scanning every producer.
   */
  private final Map<String, Map<TopicPartition, Set<Long>>> openByGroup = new HashMap<>();

  /** Records a transactional offset; a later one of the same producer and partition replaces it. */
  void add(
      long producerId,
      String groupId,
      TopicPartition tp,
      CommittedOffset offset,
      long recordOffset) {
    byProducer
        .computeIfAbsent(producerId, p -> new HashMap<>())
        .computeIfAbsent(groupId, g -> new HashMap<>())
        .put(tp, new Pending(offset, recordOffset));
    openByGroup
        .computeIfAbsent(groupId, g -> new HashMap<>())
        .computeIfAbsent(tp, p -> new HashSet<>())
        .add(producerId);
  }

  /** Drops every producer's pending offset of a partition: its tombstone deletes them too. */
  void remove(String groupId, TopicPartition tp) {
    Map<TopicPartition, Set<Long>> partitions = openByGroup.get(groupId);
    Set<Long> producers = partitions == null ? null : partitions.remove(tp);
    if (producers == null) {
      return;
    }
    if (partitions.isEmpty()) {
      openByGroup.remove(groupId);
    }
    for (long producerId : producers) {
      Map<String, Map<TopicPartition, Pending>> groups = byProducer.get(producerId);
      Map<TopicPartition, Pending> offsets = groups.get(groupId);
      offsets.remove(tp);
      if (offsets.isEmpty()) {
        groups.remove(groupId);
      }
      if (groups.isEmpty()) {
        byProducer.remove(producerId);
      }
    }
  }

  /**
   * Ends {@code producerId}'s transaction: forgets its pending offsets and returns them.
   *
   * @return by group and partition; empty if the producer had none (a marker for a transaction that
   *     committed no offsets here)
   */
  Map<String, Map<TopicPartition, Pending>> complete(long producerId) {
    Map<String, Map<TopicPartition, Pending>> groups = byProducer.remove(producerId);
    if (groups == null) {
      return Map.of();
    }
    groups.forEach(
        (groupId, offsets) -> {
          Map<TopicPartition, Set<Long>> partitions = openByGroup.get(groupId);
          for (TopicPartition tp : offsets.keySet()) {
            Set<Long> producers = partitions.get(tp);
            producers.remove(producerId);
            if (producers.isEmpty()) {
              partitions.remove(tp);
            }
          }
          if (partitions.isEmpty()) {
            openByGroup.remove(groupId);
          }
        });
    return groups;
  }

  /** Whether some open transaction committed an offset for this partition. */
  public boolean hasPending(String groupId, TopicPartition tp) {
    return openByGroup.getOrDefault(groupId, Map.of()).containsKey(tp);
  }

  /** Whether some open transaction committed an offset for this group: it keeps the group alive. */
  public boolean hasPending(String groupId) {
    return openByGroup.containsKey(groupId);
  }

  /** The partitions of a group with a pending offset. */
  public Set<TopicPartition> partitions(String groupId) {
    return Collections.unmodifiableSet(openByGroup.getOrDefault(groupId, Map.of()).keySet());
  }

  /** Groups with at least one pending offset. */
  public Set<String> groupIds() {
    return Collections.unmodifiableSet(openByGroup.keySet());
  }

  /** The producers with an open transaction that committed offsets here. */
  public Set<Long> producerIds() {
    return Collections.unmodifiableSet(byProducer.keySet());
  }

  /** A copy of one producer's pending offsets, by group and partition; for tests and tools. */
  public Map<String, Map<TopicPartition, CommittedOffset>> offsetsOf(long producerId) {
    Map<String, Map<TopicPartition, CommittedOffset>> copy = new HashMap<>();
    byProducer
        .getOrDefault(producerId, Map.of())
        .forEach(
            (groupId, offsets) -> {
              Map<TopicPartition, CommittedOffset> group = new HashMap<>();
              offsets.forEach((tp, pending) -> group.put(tp, pending.offset()));
              copy.put(groupId, group);
            });
    return copy;
  }
}
