package io.brook.coordinator.group.offsets;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Offset commit records, laid out as Kafka lays out its own (key type 1: group, topic, partition;
 * value version 3: offset, leader epoch, metadata, commit timestamp), so Kafka's offsets formatter
 * can read a Brook {@code __consumer_offsets} partition. Key type 0 is the older identical key.
 */
public final class OffsetRecords {
  public static final short KEY_TYPE_V0 = 0;
  public static final short KEY_TYPE = 1;
  private static final short VALUE_VERSION = 3;

  private static final Schema KEY =
      new Schema(
          new Field("group", Type.STRING),
          new Field("topic", Type.STRING),
          new Field("partition", Type.INT32));
  private static final Schema VALUE =
      new Schema(
          new Field("offset", Type.INT64),
          new Field("leader_epoch", Type.INT32),
          new Field("metadata", Type.STRING),
          new Field("commit_timestamp", Type.INT64));

  private OffsetRecords() {}

  /** The decoded key of an offset record. */
  public record Key(String groupId, TopicPartition topicPartition) {}

  public static boolean handles(short type) {
    return type == KEY_TYPE || type == KEY_TYPE_V0;
  }

  public static CoordinatorRecord commit(
      String groupId, TopicPartition tp, CommittedOffset committed) {
    Struct value = new Struct(VALUE);
    value.set("offset", committed.offset());
    value.set("leader_epoch", committed.leaderEpoch());
    value.set("metadata", committed.metadata());
    value.set("commit_timestamp", committed.commitTimestampMs());
    ByteBuffer bytes = ByteBuffer.allocate(2 + value.sizeOf());
    bytes.putShort(VALUE_VERSION);
    value.writeTo(bytes);
    bytes.flip();
    return new CoordinatorRecord(KEY_TYPE, key(groupId, tp), bytes);
  }

  public static CoordinatorRecord tombstone(String groupId, TopicPartition tp) {
    return CoordinatorRecord.tombstone(KEY_TYPE, key(groupId, tp));
  }

  private static ByteBuffer key(String groupId, TopicPartition tp) {
    Struct key = new Struct(KEY);
    key.set("group", groupId);
    key.set("topic", tp.topic());
    key.set("partition", tp.partition());
    ByteBuffer bytes = ByteBuffer.allocate(key.sizeOf());
    key.writeTo(bytes);
    bytes.flip();
    return bytes;
  }

  /**
   * @throws org.apache.kafka.common.protocol.types.SchemaException if the bytes do not parse
   */
  public static Key readKey(CoordinatorRecord record) {
    Struct key = KEY.read(record.key().duplicate());
    return new Key(
        key.getString("group"),
        new TopicPartition(key.getString("topic"), key.getInt("partition")));
  }

  /**
   * Reads a value of version 1 to 3 (version 1 also had an expire timestamp, ignored now).
   *
   * @throws IllegalArgumentException for an unknown version
   */
  public static CommittedOffset readValue(CoordinatorRecord record) {
    ByteBuffer buffer = record.value().duplicate();
    short version = buffer.getShort();
    if (version != VALUE_VERSION) {
      throw new IllegalArgumentException("unsupported offset value version " + version);
    }
    Struct value = VALUE.read(buffer);
    return new CommittedOffset(
        value.getLong("offset"),
        value.getInt("leader_epoch"),
        value.getString("metadata"),
        value.getLong("commit_timestamp"));
  }
}
