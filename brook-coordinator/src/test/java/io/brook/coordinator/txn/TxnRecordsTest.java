package io.brook.coordinator.txn;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static io.brook.coordinator.testing.KafkaRecords.kafkaRecord;
import static io.brook.coordinator.testing.KafkaRecords.kafkaValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;
import org.junit.jupiter.api.Test;

class TxnRecordsTest {
  private static final TxnMetadata ONGOING =
      new TxnMetadata(
          "txn-1",
          4242L,
          (short) 7,
          TxnMetadata.NO_EPOCH,
          60_000,
          TransactionState.ONGOING,
          Set.of(
              new TopicPartition("b", 1), new TopicPartition("a", 3), new TopicPartition("a", 0)),
          1_000L,
          2_000L);

  @Test
  void roundTrips() {
    CoordinatorRecord record = TxnRecords.record(ONGOING);
    assertThat(record.type()).isEqualTo(TxnRecords.KEY_TYPE);
    assertThat(TxnRecords.readKey(record)).isEqualTo("txn-1");
    assertThat(TxnRecords.readValue("txn-1", record)).isEqualTo(ONGOING);
  }

  @Test
  void deadIsATombstone() {
    TxnMetadata empty = TxnMetadata.fresh("gone", 1L, 1000, 5L);
    CoordinatorRecord record = TxnRecords.record(empty.dead(10L));
    assertThat(record.isTombstone()).isTrue();
    assertThat(TxnRecords.readKey(record)).isEqualTo("gone");
  }

  @Test
  void kafkaReadsWhatBrookWrites() {
    CoordinatorRecord record = TxnRecords.record(ONGOING);
    TransactionLogKey key =
        new TransactionLogKey(new ByteBufferAccessor(record.key().duplicate()), (short) 0);
    assertThat(key.transactionalId()).isEqualTo("txn-1");
    ByteBuffer value = record.value().duplicate();
    short version = value.getShort();
    assertThat(version).isZero();
    TransactionLogValue kafka = new TransactionLogValue(new ByteBufferAccessor(value), version);
    assertThat(kafka.producerId()).isEqualTo(4242L);
    assertThat(kafka.producerEpoch()).isEqualTo((short) 7);
    assertThat(kafka.transactionTimeoutMs()).isEqualTo(60_000);
    assertThat(kafka.transactionStatus()).isEqualTo((byte) 1);
    assertThat(kafka.transactionLastUpdateTimestampMs()).isEqualTo(2_000L);
    assertThat(kafka.transactionStartTimestampMs()).isEqualTo(1_000L);
    assertThat(kafka.transactionPartitions()).hasSize(2);
    assertThat(kafka.transactionPartitions().get(0).topic()).isEqualTo("a");
    assertThat(kafka.transactionPartitions().get(0).partitionIds()).containsExactly(0, 3);
  }

  @Test
  void writesKafkasBytes() {
    TransactionLogKey key = new TransactionLogKey().setTransactionalId("txn-1");
    TransactionLogValue value =
        new TransactionLogValue()
            .setProducerId(4242L)
            .setProducerEpoch((short) 7)
            .setTransactionTimeoutMs(60_000)
            .setTransactionStatus((byte) 1)
            .setTransactionPartitions(
                List.of(
                    new TransactionLogValue.PartitionsSchema()
                        .setTopic("a")
                        .setPartitionIds(List.of(0, 3)),
                    new TransactionLogValue.PartitionsSchema()
                        .setTopic("b")
                        .setPartitionIds(List.of(1))))
            .setTransactionLastUpdateTimestampMs(2_000L)
            .setTransactionStartTimestampMs(1_000L);
    CoordinatorRecord brook = TxnRecords.record(ONGOING);

    assertKafkaBytes(brook, key, (short) 0, value);
    assertKafkaReadsValue(brook, TransactionLogValue::new, value);
    assertKafkaBytes(TxnRecords.tombstone("txn-1"), key, (short) 0, null);
    CoordinatorRecord fromKafka = kafkaRecord(key, (short) 0, value);
    assertThat(TxnRecords.readKey(fromKafka)).isEqualTo("txn-1");
    assertThat(TxnRecords.readValue("txn-1", fromKafka)).isEqualTo(ONGOING);
  }

  @Test
  void everyStateBrookStoresIsKafkasStatus() {
    for (TransactionState state : TransactionState.values()) {
      if (state == TransactionState.DEAD) {
        continue;
      }
      TxnMetadata metadata =
          new TxnMetadata("t", 1L, (short) 0, TxnMetadata.NO_EPOCH, 1_000, state, Set.of(), 1L, 2L);
      TransactionLogValue kafka = kafkaValue(TxnRecords.record(metadata), TransactionLogValue::new);
      assertThat(kafka.transactionStatus())
          .isEqualTo(
              org.apache.kafka.coordinator.transaction.TransactionState.valueOf(state.name()).id());
      assertThat(kafka.transactionPartitions()).isEmpty();
      assertThat(
              TxnRecords.readValue(
                  "t",
                  kafkaRecord(new TransactionLogKey().setTransactionalId("t"), (short) 1, kafka)))
          .isEqualTo(metadata);
    }
  }

  @Test
  void brookReadsKafkaVersionOne() {
    TransactionLogValue kafka =
        new TransactionLogValue()
            .setProducerId(99L)
            .setProducerEpoch((short) 3)
            .setTransactionTimeoutMs(5_000)
            .setTransactionStatus((byte) 2)
            .setPreviousProducerId(98L)
            .setClientTransactionVersion((short) 2)
            .setTransactionPartitions(
                List.of(
                    new TransactionLogValue.PartitionsSchema()
                        .setTopic("t")
                        .setPartitionIds(List.of(4, 5))))
            .setTransactionLastUpdateTimestampMs(20L)
            .setTransactionStartTimestampMs(10L);
    ByteBuffer value = MessageUtil.toVersionPrefixedByteBuffer((short) 1, kafka);
    TxnMetadata read =
        TxnRecords.readValue(
            "x", new CoordinatorRecord(TxnRecords.KEY_TYPE, ByteBuffer.allocate(0), value));
    assertThat(read.producerId()).isEqualTo(99L);
    assertThat(read.state()).isEqualTo(TransactionState.PREPARE_COMMIT);
    assertThat(read.partitions())
        .containsExactlyInAnyOrder(new TopicPartition("t", 4), new TopicPartition("t", 5));
    assertThat(read.startTimestampMs()).isEqualTo(10L);
  }

  @Test
  void rejectsGarbage() {
    ByteBuffer bad = ByteBuffer.allocate(6).putShort((short) 0).putInt(Integer.MAX_VALUE).flip();
    assertThatThrownBy(
            () ->
                TxnRecords.readValue(
                    "x", new CoordinatorRecord(TxnRecords.KEY_TYPE, ByteBuffer.allocate(0), bad)))
        .isInstanceOf(MalformedRecordException.class);
    ByteBuffer unknown = ByteBuffer.allocate(2).putShort((short) 9).flip();
    assertThatThrownBy(
            () ->
                TxnRecords.readValue(
                    "x",
                    new CoordinatorRecord(TxnRecords.KEY_TYPE, ByteBuffer.allocate(0), unknown)))
        .isInstanceOf(MalformedRecordException.class);
    assertThatThrownBy(
            () ->
                TxnRecords.readKey(
                    new CoordinatorRecord(TxnRecords.KEY_TYPE, ByteBuffer.allocate(1), null)))
        .isInstanceOf(MalformedRecordException.class);
  }
}
