package io.brook.coordinator.group.offsets;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import org.apache.kafka.common.TopicPartition;

/**
 * The committed offsets of one shard's groups, as replayed from {@code __consumer_offsets}. State
 * changes only through {@link #replay}; the methods returning records describe a change without
 * making it.
 */
public final class OffsetStore {
  private final Map<String, Map<TopicPartition, CommittedOffset>> byGroup = new HashMap<>();

  /**
   * The commit before the latest, per group and partition, for the consumption rate in lag reports.
   * Derived from the same records, so it survives loading too.
   */
  private final Map<String, Map<TopicPartition, CommittedOffset>> previousByGroup = new HashMap<>();

  /**
   * The log offset of each committed offset's record: a transactional offset replaces a committed
   * one on COMMIT only if its record is newer, as in Kafka.
   */
  private final Map<String, Map<TopicPartition, Long>> recordOffsets = new HashMap<>();

  private final PendingTransactionalOffsets pending = new PendingTransactionalOffsets();

  /**
   * Applies an offset record (type 0 or 1).
   *
   * @param offset the record's offset in the log
   * @param producerId the producer of a transactional record, or {@link
   *     CoordinatorLog#NO_PRODUCER_ID}: a transactional offset stays pending until its marker
   */
  public void replay(CoordinatorRecord record, long offset, long producerId) {
    OffsetRecords.Key key = OffsetRecords.readKey(record);
    if (record.isTombstone()) {
      removeFrom(byGroup, key);
      removeFrom(previousByGroup, key);
      removeFrom(recordOffsets, key);
      pending.remove(key.groupId(), key.topicPartition());
    } else if (producerId != CoordinatorLog.NO_PRODUCER_ID) {
      pending.add(
          producerId, key.groupId(), key.topicPartition(), OffsetRecords.readValue(record), offset);
    } else {
      put(key.groupId(), key.topicPartition(), OffsetRecords.readValue(record), offset);
    }
  }

  /**
   * Ends a producer's transaction: on COMMIT its pending offsets become committed, except where a
   * commit written after them already is; on ABORT they are dropped.
   */
  public void replayEndTransactionMarker(long producerId, TxnResult result) {
    Map<String, Map<TopicPartition, PendingTransactionalOffsets.Pending>> ended =
        pending.complete(producerId);
    if (result != TxnResult.COMMIT) {
      return;
    }
    ended.forEach(
        (groupId, offsets) ->
            offsets.forEach(
                (tp, p) -> {
                  Long current = recordOffsets.getOrDefault(groupId, Map.of()).get(tp);
                  if (current == null || p.recordOffset() > current) {
                    put(groupId, tp, p.offset(), p.recordOffset());
                  }
                }));
  }

  private void put(String groupId, TopicPartition tp, CommittedOffset committed, long offset) {
    CommittedOffset replaced =
        byGroup.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, committed);
    recordOffsets.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, offset);
    if (replaced != null) {
      previousByGroup.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, replaced);
    }
  }

  /** Offsets of transactions that have not ended yet. */
  public PendingTransactionalOffsets pending() {
    return pending;
  }

  private static <V> void removeFrom(
      Map<String, Map<TopicPartition, V>> offsets, OffsetRecords.Key key) {
    Map<TopicPartition, V> group = offsets.get(key.groupId());
    if (group != null) {
      group.remove(key.topicPartition());
      if (group.isEmpty()) {
        offsets.remove(key.groupId());
      }
    }
  }

  /** The commit before the latest one of a partition, if there was one. */
  public Optional<CommittedOffset> previous(String groupId, TopicPartition tp) {
    return Optional.ofNullable(previousByGroup.getOrDefault(groupId, Map.of()).get(tp));
  }

  public Optional<CommittedOffset> committed(String groupId, TopicPartition tp) {
    return Optional.ofNullable(byGroup.getOrDefault(groupId, Map.of()).get(tp));
  }

  /** Every committed offset of a group; empty if it has none. */
  public Map<TopicPartition, CommittedOffset> committed(String groupId) {
    return Collections.unmodifiableMap(byGroup.getOrDefault(groupId, Map.of()));
  }

  public boolean hasOffsets(String groupId) {
    return byGroup.containsKey(groupId);
  }

  /**
   * Whether a group has committed or pending transactional offsets: either keeps a group without
   * members alive, as Kafka keeps the simple group a transactional commit creates.
   */
  public boolean hasOffsetsOrPending(String groupId) {
    return byGroup.containsKey(groupId) || pending.hasPending(groupId);
  }

  /** Group ids that have at least one committed offset. */
  public Set<String> groupIds() {
    return Collections.unmodifiableSet(byGroup.keySet());
  }

  /**
   * Tombstones for every offset of a group, pending transactional ones included: a tombstone drops
   * the partition's pending offsets too, so an open transaction cannot resurrect them.
   */
  public List<CoordinatorRecord> deleteAll(String groupId) {
    Set<TopicPartition> partitions =
        new LinkedHashSet<>(byGroup.getOrDefault(groupId, Map.of()).keySet());
    partitions.addAll(pending.partitions(groupId));
    List<CoordinatorRecord> records = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      records.add(OffsetRecords.tombstone(groupId, tp));
    }
    return records;
  }

  /**
   * Tombstones for offsets that have expired. A partition with a pending transactional offset never
   * expires: the transaction's COMMIT would otherwise leave the group with an offset whose
   * predecessor vanished under it.
   *
   * @param expired decides for a group's partition and its commit whether it has expired
   */
  public List<CoordinatorRecord> expire(
      String groupId, BiPredicate<TopicPartition, CommittedOffset> expired) {
    List<CoordinatorRecord> records = new ArrayList<>();
    byGroup
        .getOrDefault(groupId, Map.of())
        .forEach(
            (tp, committed) -> {
              if (!pending.hasPending(groupId, tp) && expired.test(tp, committed)) {
                records.add(OffsetRecords.tombstone(groupId, tp));
              }
            });
    return records;
  }

  /** Number of committed offsets held; for metrics. */
  public int size() {
    int size = 0;
    for (Map<TopicPartition, CommittedOffset> offsets : byGroup.values()) {
      size += offsets.size();
    }
    return size;
  }
}
