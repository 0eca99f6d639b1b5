package io.brook.coordinator.txn;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * {@code __transaction_state} records in Kafka's layout, so Kafka's tools can read a Brook
 * partition and the reverse: key type 0 is TransactionLogKey (the transactional id); the value is
 * TransactionLogValue. Brook writes value version 0 (transaction protocol V1, which is all Brook
 * serves) and reads versions 0 and 1 (1 is the flexible form with tagged fields, ignored here). An
 * expired id is a tombstone.
 */
public final class TxnRecords {
  public static final short KEY_TYPE = 0;
  private static final short VALUE_V0 = 0;
  private static final short VALUE_V1 = 1;

  private static final Schema KEY = new Schema(new Field("transactional_id", Type.STRING));

  private static final Schema PARTITIONS_V0 =
      new Schema(
          new Field("topic", Type.STRING), new Field("partition_ids", new ArrayOf(Type.INT32)));
  private static final Schema VALUE_SCHEMA_V0 =
      new Schema(
          new Field("producer_id", Type.INT64),
          new Field("producer_epoch", Type.INT16),
          new Field("transaction_timeout_ms", Type.INT32),
          new Field("transaction_status", Type.INT8),
          new Field("transaction_partitions", ArrayOf.nullable(PARTITIONS_V0)),
          new Field("transaction_last_update_timestamp_ms", Type.INT64),
          new Field("transaction_start_timestamp_ms", Type.INT64));

  private static final Schema PARTITIONS_V1 =
      new Schema(
          new Field("topic", Type.COMPACT_STRING),
          new Field("partition_ids", new CompactArrayOf(Type.INT32)),
          Field.TaggedFieldsSection.of());
  private static final Schema VALUE_SCHEMA_V1 =
      new Schema(
          new Field("producer_id", Type.INT64),
          new Field("producer_epoch", Type.INT16),
          new Field("transaction_timeout_ms", Type.INT32),
          new Field("transaction_status", Type.INT8),
          new Field("transaction_partitions", CompactArrayOf.nullable(PARTITIONS_V1)),
          new Field("transaction_last_update_timestamp_ms", Type.INT64),
          new Field("transaction_start_timestamp_ms", Type.INT64),
          Field.TaggedFieldsSection.of());

  private TxnRecords() {}

  public static boolean handles(short type) {
    return type == KEY_TYPE;
  }

  /** The record storing {@code metadata}; a DEAD id is stored as a tombstone. */
  public static CoordinatorRecord record(TxnMetadata metadata) {
    if (metadata.state() == TransactionState.DEAD) {
      return tombstone(metadata.transactionalId());
    }
    Struct value = new Struct(VALUE_SCHEMA_V0);
    value.set("producer_id", metadata.producerId());
    value.set("producer_epoch", metadata.producerEpoch());
    value.set("transaction_timeout_ms", metadata.timeoutMs());
    value.set("transaction_status", metadata.state().id());
    value.set("transaction_partitions", partitionsOf(value, metadata.partitions()));
    value.set("transaction_last_update_timestamp_ms", metadata.lastUpdateTimestampMs());
    value.set("transaction_start_timestamp_ms", metadata.startTimestampMs());
    ByteBuffer bytes = ByteBuffer.allocate(2 + value.sizeOf());
    bytes.putShort(VALUE_V0);
    value.writeTo(bytes);
    bytes.flip();
    return new CoordinatorRecord(KEY_TYPE, key(metadata.transactionalId()), bytes);
  }

  public static CoordinatorRecord tombstone(String transactionalId) {
    return CoordinatorRecord.tombstone(KEY_TYPE, key(transactionalId));
  }

  /** Partitions grouped by topic, topics and partitions sorted, so equal sets encode equally. */
  private static Object[] partitionsOf(Struct value, Set<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<Struct> topics = new ArrayList<>();
    byTopic.forEach(
        (topic, ids) -> {
          ids.sort(Integer::compare);
          Struct entry = value.instance("transaction_partitions");
          entry.set("topic", topic);
          entry.set("partition_ids", ids.toArray());
          topics.add(entry);
        });
    return topics.toArray();
  }

  private static ByteBuffer key(String transactionalId) {
    Struct key = new Struct(KEY);
    key.set("transactional_id", transactionalId);
    ByteBuffer bytes = ByteBuffer.allocate(key.sizeOf());
    key.writeTo(bytes);
    bytes.flip();
    return bytes;
  }

  /**
   * @throws SchemaException if the key does not parse
   */
  public static String readKey(CoordinatorRecord record) {
    return KEY.read(record.key().duplicate()).getString("transactional_id");
  }

  /**
   * Reads a value of version 0 or 1; {@code lastProducerEpoch} is left at -1 for replay to derive.
   *
   * @throws IllegalArgumentException for an unknown version, state or malformed bytes
   */
  public static TxnMetadata readValue(String transactionalId, CoordinatorRecord record) {
    ByteBuffer buffer = record.value().duplicate();
    if (buffer.remaining() < 2) {
      throw new IllegalArgumentException("transaction value without a version");
    }
    short version = buffer.getShort();
    Schema schema =
        switch (version) {
          case VALUE_V0 -> VALUE_SCHEMA_V0;
          case VALUE_V1 -> VALUE_SCHEMA_V1;
          default ->
              throw new IllegalArgumentException(
                  "unsupported transaction value version " + version);
        };
    Struct value;
    try {
      value = schema.read(buffer);
    } catch (SchemaException e) {
      throw new IllegalArgumentException("malformed transaction value: " + e.getMessage(), e);
    }
    return new TxnMetadata(
        transactionalId,
        value.getLong("producer_id"),
        value.getShort("producer_epoch"),
        TxnMetadata.NO_EPOCH,
        value.getInt("transaction_timeout_ms"),
        TransactionState.fromId((Byte) value.get("transaction_status")),
        readPartitions(value.getArray("transaction_partitions")),
        value.getLong("transaction_start_timestamp_ms"),
        value.getLong("transaction_last_update_timestamp_ms"));
  }

  private static Set<TopicPartition> readPartitions(Object[] topics) {
    Set<TopicPartition> partitions = new HashSet<>();
    if (topics == null) {
      return partitions;
    }
    for (Object o : topics) {
      Struct topic = (Struct) o;
      String name = topic.getString("topic");
      for (Object id : topic.getArray("partition_ids")) {
        partitions.add(new TopicPartition(name, (Integer) id));
      }
    }
    return partitions;
  }
}
