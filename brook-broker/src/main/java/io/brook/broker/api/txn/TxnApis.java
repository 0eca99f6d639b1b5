package io.brook.broker.api.txn;

import io.brook.broker.api.group.CoordinatorApi;
import io.brook.coordinator.service.TransactionCoordinatorService;
import io.brook.protocol.ApiHandler;
import java.util.List;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/** The Kafka APIs the transaction coordinator serves. */
public final class TxnApis {
  private TxnApis() {}

  public static List<ApiHandler> handlers(TransactionCoordinatorService transactions) {
    return List.of(
        new CoordinatorApi<>(
            ApiKeys.INIT_PRODUCER_ID,
            transactions.maxVersion(ApiKeys.INIT_PRODUCER_ID),
            InitProducerIdRequestData.class,
            transactions::initProducerId),
        new CoordinatorApi<>(
            ApiKeys.ADD_PARTITIONS_TO_TXN,
            transactions.maxVersion(ApiKeys.ADD_PARTITIONS_TO_TXN),
            AddPartitionsToTxnRequestData.class,
            transactions::addPartitionsToTxn),
        new CoordinatorApi<>(
            ApiKeys.ADD_OFFSETS_TO_TXN,
            transactions.maxVersion(ApiKeys.ADD_OFFSETS_TO_TXN),
            AddOffsetsToTxnRequestData.class,
            transactions::addOffsetsToTxn),
        new CoordinatorApi<>(
            ApiKeys.END_TXN,
            transactions.maxVersion(ApiKeys.END_TXN),
            EndTxnRequestData.class,
            transactions::endTxn),
        new CoordinatorApi<>(
            ApiKeys.DESCRIBE_TRANSACTIONS,
            transactions.maxVersion(ApiKeys.DESCRIBE_TRANSACTIONS),
            DescribeTransactionsRequestData.class,
            transactions::describeTransactions),
        new CoordinatorApi<>(
            ApiKeys.LIST_TRANSACTIONS,
            transactions.maxVersion(ApiKeys.LIST_TRANSACTIONS),
            ListTransactionsRequestData.class,
            transactions::listTransactions));
  }
}
