package io.brook.coordinator.service;

import io.brook.coordinator.TxnResult;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The marker of one ended transaction, to be written to each of its partitions.
 *
 * @param coordinatorEpoch the leader epoch of the coordinator's {@code __transaction_state}
 *     partition, which the partitions' logs use to fence a stale coordinator
 * @param transactionVersion the transaction protocol the transaction used (WriteTxnMarkers v2's
 *     {@code TransactionVersion}): from 2 on (KIP-890 part 2) {@code producerEpoch} was bumped when
 *     the transaction ended, and the partitions refuse a marker whose epoch is not above theirs
 */
public record TxnMarker(
    long producerId,
    short producerEpoch,
    int coordinatorEpoch,
    TxnResult result,
    List<TopicPartition> partitions,
    short transactionVersion) {
  public TxnMarker {
    partitions = List.copyOf(partitions);
  }
}
