package io.brook.coordinator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

/**
 * Compares Brook's coordinator records with the ones Kafka's generated record classes write, the
 * way Kafka frames them in its coordinator topics ({@link
 * MessageUtil#toCoordinatorTypePrefixedByteBuffer} keys, {@link
 * MessageUtil#toVersionPrefixedByteBuffer} values).
 */
public final class KafkaRecords {
  private KafkaRecords() {}

  /** A generated class's reading constructor. */
  @FunctionalInterface
  public interface Reader<T extends ApiMessage> {
    T read(Readable readable, short version);
  }

  /** The Kafka record key (type, then key) of a Brook record. */
  public static ByteBuffer recordKey(CoordinatorRecord record) {
    ByteBuffer out = ByteBuffer.allocate(2 + record.key().remaining());
    out.putShort(record.type()).put(record.key().duplicate()).flip();
    return out;
  }

  /** The record Kafka writes for {@code key} and {@code value}, as Brook sees it when loading. */
  public static CoordinatorRecord kafkaRecord(ApiMessage key, short version, ApiMessage value) {
    return CoordinatorRecord.fromKafkaRecord(
        MessageUtil.toCoordinatorTypePrefixedByteBuffer(key),
        value == null ? null : MessageUtil.toVersionPrefixedByteBuffer(version, value));
  }

  /** Brook's record is, byte for byte, what Kafka writes for {@code key} and {@code value}. */
  public static void assertKafkaBytes(
      CoordinatorRecord brook, ApiMessage key, short version, ApiMessage value) {
    assertThat(recordKey(brook)).isEqualTo(MessageUtil.toCoordinatorTypePrefixedByteBuffer(key));
    if (value == null) {
      assertThat(brook.value()).isNull();
    } else {
      assertThat(brook.value()).isEqualTo(MessageUtil.toVersionPrefixedByteBuffer(version, value));
    }
  }

  /** Kafka's generated key class reads Brook's key as {@code expected}. */
  public static void assertKafkaReadsKey(
      CoordinatorRecord brook, Reader<?> reader, ApiMessage expected) {
    ApiMessage read = kafkaKey(brook, reader);
    assertThat(read).isEqualTo(expected);
  }

  /** Kafka's generated value class reads Brook's value as {@code expected}. */
  public static void assertKafkaReadsValue(
      CoordinatorRecord brook, Reader<?> reader, ApiMessage expected) {
    ApiMessage read = kafkaValue(brook, reader);
    assertThat(read).isEqualTo(expected);
  }

  /** Brook's record key read by Kafka's generated key class. */
  public static <T extends ApiMessage> T kafkaKey(CoordinatorRecord brook, Reader<T> reader) {
    return reader.read(new ByteBufferAccessor(brook.key().duplicate()), (short) 0);
  }

  /** Brook's record value read by Kafka's generated value class at the version it carries. */
  public static <T extends ApiMessage> T kafkaValue(CoordinatorRecord brook, Reader<T> reader) {
    ByteBuffer value = brook.value().duplicate();
    short version = value.getShort();
    return reader.read(new ByteBufferAccessor(value), version);
  }
}
