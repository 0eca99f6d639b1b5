package io.brook.coordinator.txn;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.coordinator.transaction.generated.CoordinatorRecordType;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;

/**
 * {@code __transaction_state} records, written and read with Kafka's generated {@code
 * TransactionLogKey} (type 0: the transactional id) and {@code TransactionLogValue}, so Kafka's
 * tools read a Brook partition and the reverse. Brook writes value version 0 for ids whose producer
 * speaks transaction protocol V0/V1, and the flexible version 1 with its tagged fields ({@code
 * PreviousProducerId}, {@code NextProducerId}, {@code ClientTransactionVersion}) for V2 producers,
 * as Kafka does once {@code transaction.version} is finalized; it reads both. An expired id is a
 * tombstone.
 */
public final class TxnRecords {
  public static final short KEY_TYPE = CoordinatorRecordType.TRANSACTION_LOG.id();
  private static final short VALUE_VERSION = 0;
  private static final short FLEXIBLE_VALUE_VERSION = 1;

  private TxnRecords() {}

  public static boolean handles(short type) {
    return type == KEY_TYPE;
  }

  /** The record storing {@code metadata}; a DEAD id is stored as a tombstone. */
  public static CoordinatorRecord record(TxnMetadata metadata) {
    if (metadata.state() == TransactionState.DEAD) {
      return tombstone(metadata.transactionalId());
    }
    boolean flexible =
        metadata.isV2()
            || metadata.prevProducerId() != TxnMetadata.NO_PRODUCER_ID
            || metadata.nextProducerId() != TxnMetadata.NO_PRODUCER_ID;
    return GeneratedRecords.record(
        key(metadata.transactionalId()),
        flexible ? FLEXIBLE_VALUE_VERSION : VALUE_VERSION,
        new TransactionLogValue()
            .setProducerId(metadata.producerId())
            .setPreviousProducerId(metadata.prevProducerId())
            .setNextProducerId(metadata.nextProducerId())
            .setProducerEpoch(metadata.producerEpoch())
            .setTransactionTimeoutMs(metadata.timeoutMs())
            .setTransactionStatus(metadata.state().id())
            .setTransactionPartitions(partitionsOf(metadata.partitions()))
            .setTransactionLastUpdateTimestampMs(metadata.lastUpdateTimestampMs())
            .setTransactionStartTimestampMs(metadata.startTimestampMs())
            .setClientTransactionVersion(metadata.clientTransactionVersion()));
  }

  public static CoordinatorRecord tombstone(String transactionalId) {
    return GeneratedRecords.tombstone(key(transactionalId));
  }

  private static TransactionLogKey key(String transactionalId) {
    return new TransactionLogKey().setTransactionalId(transactionalId);
  }

  /** Partitions grouped by topic, topics and partitions sorted, so equal sets encode equally. */
  private static List<TransactionLogValue.PartitionsSchema> partitionsOf(
      Set<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<TransactionLogValue.PartitionsSchema> topics = new ArrayList<>(byTopic.size());
    byTopic.forEach(
        (topic, ids) -> {
          ids.sort(Integer::compare);
          topics.add(
              new TransactionLogValue.PartitionsSchema().setTopic(topic).setPartitionIds(ids));
        });
    return topics;
  }

  /**
   * @throws io.brook.coordinator.runtime.MalformedRecordException if the key does not parse
   */
  public static String readKey(CoordinatorRecord record) {
    return GeneratedRecords.readKey(record, TransactionLogKey::new).transactionalId();
  }

  /**
   * Reads a value of version 0 or 1 (version 0 has no tagged fields: no previous or next producer
   * id, client version 0); {@code lastProducerEpoch} is left at -1 for replay to derive.
   *
   * @throws IllegalArgumentException for an unknown version, state or malformed bytes (a {@link
   *     io.brook.coordinator.runtime.MalformedRecordException} for the bytes)
   */
  public static TxnMetadata readValue(String transactionalId, CoordinatorRecord record) {
    TransactionLogValue value =
        GeneratedRecords.readValue(
            record,
            TransactionLogValue.LOWEST_SUPPORTED_VERSION,
            TransactionLogValue.HIGHEST_SUPPORTED_VERSION,
            TransactionLogValue::new);
    return new TxnMetadata(
        transactionalId,
        value.producerId(),
        value.producerEpoch(),
        TxnMetadata.NO_EPOCH,
        value.transactionTimeoutMs(),
        TransactionState.fromId(value.transactionStatus()),
        readPartitions(value.transactionPartitions()),
        value.transactionStartTimestampMs(),
        value.transactionLastUpdateTimestampMs(),
        value.previousProducerId(),
        value.nextProducerId(),
        value.clientTransactionVersion());
  }

  private static Set<TopicPartition> readPartitions(
      List<TransactionLogValue.PartitionsSchema> topics) {
    Set<TopicPartition> partitions = new HashSet<>();
    if (topics == null) {
      return partitions;
    }
    for (TransactionLogValue.PartitionsSchema topic : topics) {
      for (int id : topic.partitionIds()) {
        partitions.add(new TopicPartition(topic.topic(), id));
      }
    }
    return partitions;
  }
}
