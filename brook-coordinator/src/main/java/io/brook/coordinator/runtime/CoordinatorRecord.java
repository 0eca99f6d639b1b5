package io.brook.coordinator.runtime;

import io.brook.coordinator.log.CoordinatorLog;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One record of a coordinator topic. The Kafka record key is the 2-byte {@code type} followed by
 * {@code key}, which is what compaction keeps the latest of; the value starts with its own 2-byte
 * schema version. A null {@code value} is a tombstone that deletes the key.
 *
 * <p>Types follow Kafka's {@code __consumer_offsets} key versions: 0 and 1 offset commits, 2
 * classic group metadata, 3 and up the consumer-group (KIP-848) records.
 *
 * @param type the record type, the first two bytes of the Kafka record key
 * @param key the rest of the key, positioned at its start
 * @param value the value, or null for a tombstone
 */
public record CoordinatorRecord(short type, ByteBuffer key, ByteBuffer value)
    implements CoordinatorLog.Entry {
  public CoordinatorRecord {
    Objects.requireNonNull(key, "key");
  }

  public static CoordinatorRecord tombstone(short type, ByteBuffer key) {
    return new CoordinatorRecord(type, key, null);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** The Kafka record key: the type, then the key. */
  @Override
  public ByteBuffer recordKey() {
    ByteBuffer out = ByteBuffer.allocate(2 + key.remaining());
    out.putShort(type).put(key.duplicate()).flip();
    return out;
  }

  @Override
  public ByteBuffer recordValue() {
    return value == null ? null : value.duplicate();
  }

  /**
   * Splits a Kafka record key and value into a coordinator record.
   *
   * @throws MalformedRecordException if the key is shorter than its type
   */
  public static CoordinatorRecord fromKafkaRecord(ByteBuffer recordKey, ByteBuffer value) {
    if (recordKey == null || recordKey.remaining() < 2) {
      throw new MalformedRecordException("coordinator record without a key type");
    }
    ByteBuffer key = recordKey.duplicate();
    short type = key.getShort();
    return new CoordinatorRecord(type, key.slice(), value);
  }
}
