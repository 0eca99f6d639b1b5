package io.brook.coordinator.txn.api;

import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.protocol.ApiHandler;
import java.util.List;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.utils.Time;

/**
 * The Kafka APIs the transaction coordinator serves, InitProducerId for idempotent producers
 * included. FindCoordinator (key type TRANSACTION) is served with the group APIs.
 */
public final class TxnApis {
  private TxnApis() {}

  /**
   * @param groupPartition the {@code __consumer_offsets} partition of a group id, for
   *     AddOffsetsToTxn
   */
  public static List<ApiHandler> handlers(
      TransactionCoordinator coordinator,
      ReplicaManager replicaManager,
      ToIntFunction<String> groupPartition,
      Time time) {
    return List.of(
        new InitProducerIdHandler(coordinator),
        new AddPartitionsToTxnHandler(coordinator, replicaManager),
        new AddOffsetsToTxnHandler(coordinator, groupPartition),
        new EndTxnHandler(coordinator),
        new DescribeTransactionsHandler(coordinator),
        new ListTransactionsHandler(coordinator, time));
  }
}
