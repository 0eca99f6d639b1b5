package io.brook.coordinator.group.offsets;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordType;
import org.apache.kafka.coordinator.group.generated.LegacyOffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;

/**
 * Offset commit records, written with Kafka's generated {@code OffsetCommitKey} (type 1: group,
 * topic, partition) and {@code OffsetCommitValue} version 3 (offset, leader epoch, metadata, commit
 * timestamp), so Kafka's tools read a Brook {@code __consumer_offsets} partition and the reverse.
 * Type 0 is Kafka's older, identical key; values of versions 0 to 4 are read (versions before 3
 * have no leader epoch, read as -1; version 1's expire timestamp is ignored).
 */
public final class OffsetRecords {
  public static final short KEY_TYPE_V0 = CoordinatorRecordType.LEGACY_OFFSET_COMMIT.id();
  public static final short KEY_TYPE = CoordinatorRecordType.OFFSET_COMMIT.id();
  private static final short VALUE_VERSION = 3;

  private OffsetRecords() {}

  /** The decoded key of an offset record. */
  public record Key(String groupId, TopicPartition topicPartition) {}

  public static boolean handles(short type) {
    return type == KEY_TYPE || type == KEY_TYPE_V0;
  }

  public static CoordinatorRecord commit(
      String groupId, TopicPartition tp, CommittedOffset committed) {
    return GeneratedRecords.record(
        key(groupId, tp),
        VALUE_VERSION,
        new OffsetCommitValue()
            .setOffset(committed.offset())
            .setLeaderEpoch(committed.leaderEpoch())
            .setMetadata(committed.metadata())
            .setCommitTimestamp(committed.commitTimestampMs()));
  }

  public static CoordinatorRecord tombstone(String groupId, TopicPartition tp) {
    return GeneratedRecords.tombstone(key(groupId, tp));
  }

  private static OffsetCommitKey key(String groupId, TopicPartition tp) {
    return new OffsetCommitKey()
        .setGroup(groupId)
        .setTopic(tp.topic())
        .setPartition(tp.partition());
  }

  /**
   * @throws io.brook.coordinator.runtime.MalformedRecordException if the key does not parse
   */
  public static Key readKey(CoordinatorRecord record) {
    if (record.type() == KEY_TYPE_V0) {
      LegacyOffsetCommitKey key = GeneratedRecords.readKey(record, LegacyOffsetCommitKey::new);
      return new Key(key.group(), new TopicPartition(key.topic(), key.partition()));
    }
    OffsetCommitKey key = GeneratedRecords.readKey(record, OffsetCommitKey::new);
    return new Key(key.group(), new TopicPartition(key.topic(), key.partition()));
  }

  /**
   * @throws io.brook.coordinator.runtime.MalformedRecordException for an unknown version or bytes
   *     that do not parse
   */
  public static CommittedOffset readValue(CoordinatorRecord record) {
    OffsetCommitValue value =
        GeneratedRecords.readValue(
            record,
            OffsetCommitValue.LOWEST_SUPPORTED_VERSION,
            OffsetCommitValue.HIGHEST_SUPPORTED_VERSION,
            OffsetCommitValue::new);
    return new CommittedOffset(
        value.offset(), value.leaderEpoch(), value.metadata(), value.commitTimestamp());
  }
}
