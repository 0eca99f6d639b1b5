package io.brook.coordinator.runtime;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

/**
 * Coordinator records written and read with Kafka's generated record classes ({@code
 * org.apache.kafka.coordinator.*.generated}), so Brook's {@code __consumer_offsets} and {@code
 * __transaction_state} hold exactly the bytes Kafka writes for the same content.
 *
 * <p>The layout is Kafka's: the record key is the key message's type ({@link ApiMessage#apiKey})
 * then the key at version 0, as {@link MessageUtil#toCoordinatorTypePrefixedByteBuffer} writes it;
 * the value is a 2-byte version then the value message at that version, as {@link
 * MessageUtil#toVersionPrefixedByteBuffer} writes it; a null value is a tombstone.
 *
 * <p>Reading turns whatever the generated readers throw on bad bytes (a plain {@link
 * RuntimeException} for a bad length or a null in a non-nullable field, {@code
 * UnsupportedVersionException}, a buffer underflow, a malformed varint) into a {@link
 * MalformedRecordException}, the one failure the loader skips a record for. The generated readers
 * check every length against the bytes left before allocating, so a corrupt prefix cannot make them
 * allocate what it claims.
 */
public final class GeneratedRecords {
  private static final short KEY_VERSION = 0;

  private GeneratedRecords() {}

  /** A generated class's reading constructor, {@code (readable, version)}. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(Readable readable, short version);
  }

  /** The record of {@code key} with {@code value} written at {@code valueVersion}. */
  public static CoordinatorRecord record(ApiMessage key, short valueVersion, ApiMessage value) {
    return new CoordinatorRecord(
        key.apiKey(), keyBytes(key), MessageUtil.toVersionPrefixedByteBuffer(valueVersion, value));
  }

  /** The tombstone of {@code key}. */
  public static CoordinatorRecord tombstone(ApiMessage key) {
    return CoordinatorRecord.tombstone(key.apiKey(), keyBytes(key));
  }

  /** The key's bytes after its type. */
  public static ByteBuffer keyBytes(ApiMessage key) {
    return MessageUtil.toByteBufferAccessor(key, KEY_VERSION).buffer();
  }

  /**
   * Reads the record's key with a generated key class.
   *
   * @throws MalformedRecordException if the bytes do not parse
   */
  public static <T> T readKey(CoordinatorRecord record, Reader<T> reader) {
    try {
      return reader.read(new ByteBufferAccessor(record.key().duplicate()), KEY_VERSION);
    } catch (RuntimeException e) {
      throw malformed(record, "key", e);
    }
  }

  /**
   * Reads the record's value with a generated value class, refusing versions outside {@code
   * [lowest, highest]} (the versions the caller knows how to apply).
   *
   * @throws MalformedRecordException if the version is unknown or the bytes do not parse
   */
  public static <T> T readValue(
      CoordinatorRecord record, short lowest, short highest, Reader<T> reader) {
    ByteBuffer value =
        Objects.requireNonNull(record.value(), "a tombstone has no value").duplicate();
    if (value.remaining() < 2) {
      throw new MalformedRecordException(
          "coordinator record of type " + record.type() + " has a value without a version");
    }
    short version = value.getShort();
    if (version < lowest || version > highest) {
      throw new MalformedRecordException(
          "unsupported value version " + version + " of coordinator record type " + record.type());
    }
    try {
      return reader.read(new ByteBufferAccessor(value), version);
    } catch (RuntimeException e) {
      throw malformed(record, "value", e);
    }
  }

  private static MalformedRecordException malformed(
      CoordinatorRecord record, String part, RuntimeException cause) {
    if (cause instanceof MalformedRecordException m) {
      return m;
    }
    return new MalformedRecordException(
        "malformed " + part + " of coordinator record type " + record.type() + ": " + cause, cause);
  }
}
