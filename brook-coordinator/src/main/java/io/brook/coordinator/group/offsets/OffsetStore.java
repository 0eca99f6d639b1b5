package io.brook.coordinator.group.offsets;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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

  /** Applies an offset record (type 0 or 1). */
  public void replay(CoordinatorRecord record) {
    OffsetRecords.Key key = OffsetRecords.readKey(record);
    if (record.isTombstone()) {
      removeFrom(byGroup, key);
      removeFrom(previousByGroup, key);
    } else {
      CommittedOffset replaced =
          byGroup
              .computeIfAbsent(key.groupId(), g -> new HashMap<>())
              .put(key.topicPartition(), OffsetRecords.readValue(record));
      if (replaced != null) {
        previousByGroup
            .computeIfAbsent(key.groupId(), g -> new HashMap<>())
            .put(key.topicPartition(), replaced);
      }
    }
  }

  private static void removeFrom(
      Map<String, Map<TopicPartition, CommittedOffset>> offsets, OffsetRecords.Key key) {
    Map<TopicPartition, CommittedOffset> group = offsets.get(key.groupId());
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

  /** Group ids that have at least one committed offset. */
  public Set<String> groupIds() {
    return Collections.unmodifiableSet(byGroup.keySet());
  }

  /** Tombstones for every offset of a group. */
  public List<CoordinatorRecord> deleteAll(String groupId) {
    List<CoordinatorRecord> records = new ArrayList<>();
    for (TopicPartition tp : byGroup.getOrDefault(groupId, Map.of()).keySet()) {
      records.add(OffsetRecords.tombstone(groupId, tp));
    }
    return records;
  }

  /**
   * Tombstones for offsets that have expired.
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
              if (expired.test(tp, committed)) {
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
